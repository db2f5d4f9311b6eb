// Erases one address from the webhooks tables (forget_subscriber). Owned by the webhooks area.
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from './index.ts';

export async function erase(_trx: Db, _accountId: string, _target: ForgetTarget): Promise<void> {}
