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
import * as queries from './queries.ts';

export interface LinkTarget {
  email: string;
  status: string;
  account_name: string;
}

/** Who the link is for (the confirmation page shows it); NotFound when the subscriber no longer exists. */
export async function describe(db: Db, t: UnsubscribeToken): Promise<LinkTarget> {
  const row = await queries.linkTarget(db, t.account_id, t.subscriber_id);
  if (!row) throw new NotFound('Subscriber not found');
  return row;
}

/** `source` says how: the link (and one-click), or a mail to the recipient's mailto unsubscribe address. */
export async function unsubscribe(
  db: Db,
  t: UnsubscribeToken,
  source: 'unsubscribe_link' | 'unsubscribe_mail' = 'unsubscribe_link',
): Promise<{ email: string; changed: boolean }> {
  return inTransaction(db, async (trx) => {
    const before = await queries.lockSubscriber(trx, t.account_id, t.subscriber_id);
    if (!before) throw new NotFound('Subscriber not found');
    // a complaint is the stronger signal and stays; unsubscribed already is a repeat
    if (before.status === 'unsubscribed' || before.status === 'complained')
      return { email: before.email, changed: false };
    const after = await queries.markUnsubscribed(trx, t.account_id, t.subscriber_id);
    const origin = {
      source,
      ...(t.campaign_id && { campaign_id: t.campaign_id }),
      ...(t.automation_id && { automation_id: t.automation_id }),
    };
    await recordEvents(trx, t.account_id, [
      { type: 'subscriber.updated', subscriberId: after.id, data: { subscriber: publicView(after) } },
      { type: 'subscriber.unsubscribed', subscriberId: after.id, data: { subscriber: publicView(after), ...origin } },
    ]);
    if (t.campaign_id) await queries.unsubscribedFromCampaign(trx, t.account_id, t.campaign_id, t.subscriber_id);
    if (t.automation_id) await queries.unsubscribedFromAutomation(trx, t.account_id, t.automation_id, t.subscriber_id);
    return { email: after.email, changed: true };
  });
}
