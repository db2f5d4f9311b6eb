// SQL for what comes back from sent emails: opens and clicks, unsubscribe links, bounce and complaint
// reports. Each lands on the email's own row — a campaign's ledger row (campaign_recipients) or an
// automation email (automation_emails) — and, for unsubscribes, bounces and complaints, on the subscriber.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { SubscriberRow } from '../../db/schema.ts';

// ---- opens and clicks

export type Touch = 'open' | 'machine_open' | 'click';
// the fixed SET lists; never user input. A click also counts as an open when none was seen (images are
// often blocked). A privacy proxy's pixel load is an open as before, and counted apart as well
// (machine_opens, campaign rows only: automation emails count it as an open).
const CHANGES: Record<Touch, RawBuilder<unknown>> = {
  open: sql`opens = opens + 1, opened_at = coalesce(opened_at, now())`,
  machine_open: sql`opens = opens + 1, machine_opens = machine_opens + 1, opened_at = coalesce(opened_at, now())`,
  click: sql`clicks = clicks + 1, clicked_at = coalesce(clicked_at, now()), opened_at = coalesce(opened_at, now())`,
};

export async function campaignLink(trx: Db, campaignId: string, idx: number): Promise<string | undefined> {
  const row = await trx
    .selectFrom('campaign_links')
    .select('url')
    .where('campaign_id', '=', campaignId)
    .where('idx', '=', idx)
    .executeTakeFirst();
  return row?.url;
}

export async function automationLink(trx: Db, automationEmailId: string, idx: number): Promise<string | undefined> {
  const row = await trx
    .selectFrom('automation_emails as e')
    .innerJoin('automation_links as l', (j) =>
      j.onRef('l.automation_id', '=', 'e.automation_id').onRef('l.links_key', '=', 'e.links_key'),
    )
    .select('l.url')
    .where('e.id', '=', automationEmailId)
    .where('l.idx', '=', idx)
    .executeTakeFirst();
  return row?.url;
}

/**
 * Counts on a campaign's ledger row; undefined when the row is not countable or the campaign does not track
 * this. `seen` (a person's open or click) sets the row's client and device unless an earlier one did.
 */
export async function touchCampaignEmail(
  trx: Db,
  campaignId: string,
  subscriberId: string,
  touch: Touch,
  seen?: { client: string; device: string },
) {
  // 'sending' and 'interrupted' too: the token only exists in a message handed to the mail server, and
  // the send lanes record the server's answers a batch at a time, so an open can come first
  const tracks = touch === 'click' ? sql`c.track_clicks` : sql`c.track_opens`;
  const client = seen
    ? sql`, client = coalesce(r.client, ${seen.client}), device = coalesce(r.device, ${seen.device})`
    : sql``;
  const r = await sql<{ account_id: string; email: string; message_id: string | null }>`
    update campaign_recipients r set ${CHANGES[touch]}${client}
    from campaigns c
    where r.campaign_id = ${campaignId}::uuid and r.subscriber_id = ${subscriberId}::uuid
      and r.state in ('sending', 'sent', 'interrupted') and c.id = r.campaign_id and ${tracks}
    returning r.account_id, r.email, r.message_id`.execute(trx);
  return r.rows[0];
}

/** One more click of link `linkIdx` by the subscriber: their row for the link, created on the first. */
export async function countLinkClick(
  trx: Db,
  accountId: string,
  campaignId: string,
  linkIdx: number,
  subscriberId: string,
): Promise<void> {
  await trx
    .insertInto('campaign_link_clicks')
    .values({ account_id: accountId, campaign_id: campaignId, link_idx: linkIdx, subscriber_id: subscriberId })
    .onConflict((oc) =>
      oc.columns(['campaign_id', 'link_idx', 'subscriber_id']).doUpdateSet({
        clicks: sql`campaign_link_clicks.clicks + 1`,
        last_clicked_at: sql`now()`,
      }),
    )
    .execute();
}

/** Counts on an automation email; undefined when the email is not countable or the account does not track. */
export async function touchAutomationEmail(trx: Db, automationEmailId: string, touch: Touch) {
  // any state but 'failed': the token only exists in a message handed to the mail server, and the open
  // can arrive before the run has recorded the server's answer (or after a crash left it 'interrupted')
  const r = await sql<{
    account_id: string;
    subscriber_id: string;
    email: string;
    message_id: string | null;
    automation_id: string;
    step: string;
    run_id: string;
  }>`
    update automation_emails e set ${CHANGES[touch === 'machine_open' ? 'open' : touch]}
    from accounts a, subscribers s
    where e.id = ${automationEmailId}::uuid and e.state <> 'failed'
      and a.id = e.account_id and a.tracking_enabled and s.id = e.subscriber_id
    returning e.account_id, e.subscriber_id, s.email, e.message_id, e.automation_id, e.step, e.run_id`.execute(trx);
  return r.rows[0];
}

// ---- the subscriber

export function linkTarget(db: Db, accountId: string, subscriberId: string) {
  return db
    .selectFrom('subscribers as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.email', 's.status', 'a.name as account_name'])
    .where('s.account_id', '=', accountId)
    .where('s.id', '=', subscriberId)
    .executeTakeFirst();
}

export function lockSubscriber(trx: Db, accountId: string, subscriberId: string) {
  return trx
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', subscriberId)
    .forUpdate()
    .executeTakeFirst();
}

export function lockSubscriberByEmail(trx: Db, accountId: string, email: string) {
  return trx
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .forUpdate()
    .executeTakeFirst();
}

export function markUnsubscribed(trx: Db, accountId: string, subscriberId: string): Promise<SubscriberRow> {
  return trx
    .updateTable('subscribers')
    .set({ status: 'unsubscribed', unsubscribed_at: new Date(), updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', subscriberId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function setStatus(trx: Db, subscriberId: string, status: 'bounced' | 'complained'): Promise<SubscriberRow> {
  return trx
    .updateTable('subscribers')
    .set({ status, updated_at: new Date() })
    .where('id', '=', subscriberId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// ---- unsubscribes on the email's row

export async function unsubscribedFromCampaign(
  trx: Db,
  accountId: string,
  campaignId: string,
  subscriberId: string,
): Promise<void> {
  await trx
    .updateTable('campaign_recipients')
    .set((eb) => ({ unsubscribed_at: eb.fn.coalesce('unsubscribed_at', eb.val(new Date())) }))
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .where('subscriber_id', '=', subscriberId)
    .execute();
}

/** The link names the automation, not one of its emails: the latest one this subscriber got is credited. */
export async function unsubscribedFromAutomation(
  trx: Db,
  accountId: string,
  automationId: string,
  subscriberId: string,
): Promise<void> {
  // 'failed' ones never left; a 'sending' one may be read before its run has recorded the answer
  await trx
    .updateTable('automation_emails')
    .set({ unsubscribed_at: new Date() })
    .where('id', '=', (eb) =>
      eb
        .selectFrom('automation_emails')
        .select('id')
        .where('account_id', '=', accountId)
        .where('automation_id', '=', automationId)
        .where('subscriber_id', '=', subscriberId)
        .where('state', '<>', 'failed')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1),
    )
    .where('unsubscribed_at', 'is', null)
    .execute();
}

// ---- bounce and complaint reports

export async function accountByBounceSecret(db: Db, secret: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('id').where('bounce_secret', '=', secret).executeTakeFirst();
  return row?.id;
}

export async function insertConfirmation(
  db: Db,
  accountId: string,
  provider: string,
  c: { subscribe_url: string; topic_arn?: string },
): Promise<void> {
  await db
    .insertInto('bounce_hook_confirmations')
    .values({ account_id: accountId, provider, subscribe_url: c.subscribe_url, topic_arn: c.topic_arn ?? null })
    .execute();
}

function campaignEmails(trx: Db, accountId: string, subscriberId: string) {
  return trx
    .selectFrom('campaign_recipients')
    .select(['id', 'campaign_id', 'message_id'])
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId);
}

export function campaignEmailById(trx: Db, accountId: string, subscriberId: string, messageId: string) {
  return campaignEmails(trx, accountId, subscriberId).where('message_id', '=', messageId).executeTakeFirst();
}

export function latestCampaignEmail(trx: Db, accountId: string, subscriberId: string) {
  return campaignEmails(trx, accountId, subscriberId)
    .where('state', '=', 'sent')
    .orderBy('sent_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function automationEmailById(trx: Db, accountId: string, subscriberId: string, messageId: string) {
  return trx
    .selectFrom('automation_emails')
    .select(['id', 'automation_id', 'step', 'run_id', 'message_id'])
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
}

/** Where a report lands: a campaign's ledger row or an automation email. */
export type EmailRow = { table: 'campaign_recipients'; id: number } | { table: 'automation_emails'; id: string };

export async function countSoftBounce(trx: Db, e: EmailRow): Promise<void> {
  if (e.table === 'campaign_recipients')
    await trx
      .updateTable('campaign_recipients')
      .set((eb) => ({ soft_bounces: eb('soft_bounces', '+', 1) }))
      .where('id', '=', e.id)
      .execute();
  else
    await trx
      .updateTable('automation_emails')
      .set((eb) => ({ soft_bounces: eb('soft_bounces', '+', 1) }))
      .where('id', '=', e.id)
      .execute();
}

/** Sets the column once; true when this call was the first to set it. `column` is one of two literals. */
export async function markOnce(trx: Db, e: EmailRow, column: 'bounced_at' | 'complained_at'): Promise<boolean> {
  const r =
    e.table === 'campaign_recipients'
      ? await trx
          .updateTable('campaign_recipients')
          .set({ [column]: sql`now()` })
          .where('id', '=', e.id)
          .where(column, 'is', null)
          .executeTakeFirst()
      : await trx
          .updateTable('automation_emails')
          .set({ [column]: sql`now()` })
          .where('id', '=', e.id)
          .where(column, 'is', null)
          .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
