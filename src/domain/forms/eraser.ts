// Erases one address from the forms tables (forget_subscriber): its pending double opt-in signups in
// every form of the account (they hold the address and what was typed with it) and its signup records.
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import type { ForgetTarget } from '../eraser.ts';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  await repo.eraseAddress(trx, accountId, target.email, target.subscriberId);
}
