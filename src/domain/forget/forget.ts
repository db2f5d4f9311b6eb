// forget_subscriber: delete the subscriber, erase the address from every area that copied it
// (ERASERS: send ledger, webhook payload log, import rows, pending signups, automation runs; plus the
// outbox and old event payloads here), and keep only a salted hash in suppressions. One transaction:
// either the address is gone everywhere or nothing changed.
import type { Db } from '../../db/client.ts';
import { ERASERS } from './erasers.ts';
import * as erasures from '../subscribers/forgetQueries.ts';
import * as repo from '../subscribers/queries.ts';
import { NotFound } from '../errors.ts';
import { recordEvent } from '../events/log.ts';
import * as suppressions from '../subscribers/suppressions.ts';
import { inTransaction } from '../transaction.ts';

export async function forgetSubscriber(
  db: Db,
  secret: string,
  accountId: string,
  subscriberId: string,
): Promise<{ id: string; forgotten: true }> {
  return inTransaction(db, async (trx) => {
    const sub = await repo.findForUpdate(trx, accountId, subscriberId);
    if (!sub) throw new NotFound('Subscriber not found');
    const target = { subscriberId: sub.id, email: sub.email };
    for (const erase of ERASERS) await erase(trx, accountId, target);
    const lower = sub.email.trim().toLowerCase();
    await erasures.deleteOutboxMail(trx, accountId, lower);
    // events with subscriber_id go with the row (the AFTER DELETE trigger of migration 1100); older payloads that name the address
    // without that link (e.g. subscriber.deleted of an earlier copy) are removed too
    await erasures.deleteEventsNaming(trx, accountId, lower);
    await repo.remove(trx, accountId, sub.id);
    await suppressions.suppress(trx, secret, accountId, sub.email, 'forgotten');
    // webhooks still learn of the deletion, but the payload carries no address
    await recordEvent(trx, accountId, 'subscriber.deleted', { subscriber: { id: sub.id }, forgotten: true }, null);
    return { id: sub.id, forgotten: true as const };
  });
}
