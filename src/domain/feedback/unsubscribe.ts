// Unsubscribing through the link in an email (RFC 8058 one-click or the confirmation page): the
// subscriber becomes `unsubscribed`, with subscriber.updated + subscriber.unsubscribed events and the
// email's row marked (the campaign's ledger row, or the automation's latest email to the subscriber), in
// one transaction, so campaign and automation stats count it. Repeating it changes nothing (mail clients retry).
import type { Db } from '../../db/client.ts';
import type { UnsubscribeToken } from '../../mail/unsubscribe.ts';
import { NotFound } from '../errors.ts';
import { recordEvents } from '../events/log.ts';
import { publicView } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';

export interface LinkTarget {
  email: string;
  status: string;
  account_name: string;
}

/** Who the link is for (the confirmation page shows it); NotFound when the subscriber no longer exists. */
export async function describe(db: Db, t: UnsubscribeToken): Promise<LinkTarget> {
  const row = await db
    .selectFrom('subscribers as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.email', 's.status', 'a.name as account_name'])
    .where('s.account_id', '=', t.account_id)
    .where('s.id', '=', t.subscriber_id)
    .executeTakeFirst();
  if (!row) throw new NotFound('Subscriber not found');
  return row;
}

export async function unsubscribe(db: Db, t: UnsubscribeToken): Promise<{ email: string; changed: boolean }> {
  return inTransaction(db, async (trx) => {
    const before = await trx.selectFrom('subscribers').selectAll().where('account_id', '=', t.account_id).where('id', '=', t.subscriber_id).forUpdate().executeTakeFirst();
    if (!before) throw new NotFound('Subscriber not found');
    // a complaint is the stronger signal and stays; unsubscribed already is a repeat
    if (before.status === 'unsubscribed' || before.status === 'complained') return { email: before.email, changed: false };
    const after = await trx
      .updateTable('subscribers')
      .set({ status: 'unsubscribed', unsubscribed_at: new Date(), updated_at: new Date() })
      .where('account_id', '=', t.account_id)
      .where('id', '=', t.subscriber_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const origin = { source: 'unsubscribe_link', ...(t.campaign_id && { campaign_id: t.campaign_id }), ...(t.automation_id && { automation_id: t.automation_id }) };
    await recordEvents(trx, t.account_id, [
      { type: 'subscriber.updated', subscriberId: after.id, data: { subscriber: publicView(after) } },
      { type: 'subscriber.unsubscribed', subscriberId: after.id, data: { subscriber: publicView(after), ...origin } },
    ]);
    if (t.campaign_id) {
      await trx
        .updateTable('campaign_recipients')
        .set((eb) => ({ unsubscribed_at: eb.fn.coalesce('unsubscribed_at', eb.val(new Date())) }))
        .where('account_id', '=', t.account_id)
        .where('campaign_id', '=', t.campaign_id)
        .where('subscriber_id', '=', t.subscriber_id)
        .execute();
    }
    if (t.automation_id) {
      // the link names the automation, not one of its emails: credit the latest one this subscriber got
      // ('failed' ones never left; a 'sending' one may be read before its run has recorded the answer)
      await trx
        .updateTable('automation_emails')
        .set({ unsubscribed_at: new Date() })
        .where('id', '=', (eb) =>
          eb
            .selectFrom('automation_emails')
            .select('id')
            .where('account_id', '=', t.account_id)
            .where('automation_id', '=', t.automation_id!)
            .where('subscriber_id', '=', t.subscriber_id)
            .where('state', '<>', 'failed')
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(1),
        )
        .where('unsubscribed_at', 'is', null)
        .execute();
    }
    return { email: after.email, changed: true };
  });
}
