// Erases one address from the campaigns tables (forget_subscriber): the send-ledger rows of the subscriber.
// Every ledger row carries subscriber_id (not null) and an address never changes subscriber, so the
// indexed subscriber_id finds them all. The outbox is erased by forget.ts itself.
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from '../eraser.ts';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  await trx
    .deleteFrom('campaign_recipients')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', target.subscriberId)
    .execute();
}
