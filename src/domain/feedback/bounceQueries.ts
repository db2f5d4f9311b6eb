// SQL of the bounce rules that the send workers and the bounce hooks share: marking the bounced emails'
// rows, making subscribers `bounced`, and the soft bounces each subscriber has had in a row. Every
// statement takes a whole set (a send batch's hard bounces, or a report's one).
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { SubscriberRow } from '../../db/schema.ts';

/** Sets bounced_at on the rows that have none yet; returns the ids this call was the first to mark. */
export async function markBounced(
  trx: Db,
  accountId: string,
  campaignRowIds: number[],
  automationEmailIds: string[],
): Promise<{ campaign: Set<number>; automation: Set<string> }> {
  const campaign =
    campaignRowIds.length === 0
      ? []
      : await trx
          .updateTable('campaign_recipients')
          .set({ bounced_at: sql`now()` })
          .where('account_id', '=', accountId)
          .where('id', 'in', campaignRowIds)
          .where('bounced_at', 'is', null)
          .returning('id')
          .execute();
  const automation =
    automationEmailIds.length === 0
      ? []
      : await trx
          .updateTable('automation_emails')
          .set({ bounced_at: sql`now()` })
          .where('account_id', '=', accountId)
          .where('id', 'in', automationEmailIds)
          .where('bounced_at', 'is', null)
          .returning('id')
          .execute();
  return { campaign: new Set(campaign.map((r) => Number(r.id))), automation: new Set(automation.map((r) => r.id)) };
}

/**
 * `bounced` from active or unsubscribed (a complained subscriber stays complained); returns the rows that
 * changed, and ends their soft bounce streaks (a bounced subscriber starts from nothing if reactivated).
 */
export async function bounceSubscribers(trx: Db, accountId: string, ids: string[]): Promise<SubscriberRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('subscribers')
    .set({ status: 'bounced', updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', 'not in', ['bounced', 'complained'])
    .returningAll()
    .execute();
  await trx
    .deleteFrom('soft_bounce_streaks')
    .where('account_id', '=', accountId)
    .where('subscriber_id', 'in', ids)
    .execute();
  return rows;
}

/**
 * One more soft bounce for each subscriber; returns those that have now had `limit` in a row. The streak
 * starts again when an email was delivered since its last soft bounce: a campaign or automation email
 * sent after it that has no bounce of its own. So nothing is written per delivered email.
 */
export async function countSoftStreaks(
  trx: Db,
  accountId: string,
  subscriberIds: string[],
  limit: number,
): Promise<string[]> {
  if (subscriberIds.length === 0) return [];
  const r = await sql<{ subscriber_id: string }>`
    with up as (
      insert into soft_bounce_streaks as st (subscriber_id, account_id, count, last_at)
      select s.id, s.account_id, 1, now() from subscribers s
      where s.account_id = ${accountId}::uuid and s.id = any(${subscriberIds}::uuid[])
      on conflict (subscriber_id) do update set
        last_at = now(),
        count = case when exists (
            select 1 from campaign_recipients r
            where r.subscriber_id = st.subscriber_id and r.state = 'sent' and r.sent_at > st.last_at
              and r.soft_bounces = 0 and r.bounced_at is null
          ) or exists (
            select 1 from automation_emails e
            where e.subscriber_id = st.subscriber_id and e.state = 'sent' and e.sent_at > st.last_at
              and e.soft_bounces = 0 and e.bounced_at is null
          ) then 1 else st.count + 1 end
      returning st.subscriber_id, st.count
    )
    select subscriber_id from up where count >= ${limit}`.execute(trx);
  return r.rows.map((row) => row.subscriber_id);
}
