// Erases one address from the forms tables (forget_subscriber). Owned by the forms area.
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from './index.ts';

export async function erase(_trx: Db, _accountId: string, _target: ForgetTarget): Promise<void> {}
