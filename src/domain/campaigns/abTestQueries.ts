// SQL of A/B tests: splitting a frozen audience into the test share and the rest, the test's results per
// variant, and releasing the rest with the winner. Each is one statement over the campaign's ledger rows.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { HUMAN_OPENED } from './queries.ts';

/**
 * Orders the ledger rows by a hash of the seed and the subscriber (the same order for the same seed and
 * audience), takes the first test_percent (at least one per variant, as far as the audience goes) as the
 * test share, variant by variant in turn; the rest waits, due at 'infinity', for the winner.
 */
export async function split(trx: Db, campaignId: string, seed: number, variants: number, percent: number) {
  await sql`
    with ranked as (
      select id, row_number() over (order by md5(${String(seed)} || subscriber_id::text), id) as rn,
        count(*) over () as total
      from campaign_recipients where campaign_id = ${campaignId}::uuid
    ), sized as (
      select id, rn, greatest(floor(total * ${percent}::int / 100.0)::bigint, least(total, ${variants}::int)) as test
      from ranked
    )
    update campaign_recipients r set
      variant = case when s.rn <= s.test then ((s.rn - 1) % ${variants}::int)::smallint end,
      ab_rest = s.rn > s.test,
      next_attempt_at = case when s.rn > s.test then 'infinity'::timestamptz else r.next_attempt_at end
    from sized s where r.id = s.id`.execute(trx);
}

/** The test share's counts per variant: sent, opened by a person, clicked, unsubscribed, bounced. */
export async function stats(db: Db, campaignId: string) {
  const r = await sql<{
    variant: number | null;
    sent: number;
    human_opens: number;
    clicks: number;
    unsubscribes: number;
    bounces: number;
  }>`
    select variant,
      count(*) filter (where state = 'sent')::int as sent,
      count(*) filter (where ${HUMAN_OPENED})::int as human_opens,
      count(*) filter (where clicked_at is not null)::int as clicks,
      count(*) filter (where unsubscribed_at is not null)::int as unsubscribes,
      count(*) filter (where bounced_at is not null)::int as bounces
    from campaign_recipients
    where campaign_id = ${campaignId}::uuid and ab_rest is not true
    group by variant`.execute(db);
  return r.rows;
}

export function lockCampaign(trx: Db, id: string, accountId: string) {
  return trx
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

/** The campaign whose automatic winner is due first, locked; SKIP LOCKED: one instance decides it. */
export function nextDue(trx: Db) {
  return trx
    .selectFrom('campaigns')
    .selectAll()
    .where('ab_winner', 'is', null)
    .where('ab_decide_at', '<=', sql<Date>`now()`)
    .where('status', 'in', ['sending', 'paused'])
    .where(sql<boolean>`ab_test->>'winner_by' <> 'manual'`)
    .orderBy('ab_decide_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** The winner is known: recorded, and the rest of the audience becomes due with it (each row once). */
export async function release(trx: Db, campaignId: string, winner: number): Promise<void> {
  await trx
    .updateTable('campaigns')
    .set({ ab_winner: winner, updated_at: new Date() })
    .where('id', '=', campaignId)
    .execute();
  await trx
    .updateTable('campaign_recipients')
    .set({ variant: winner, next_attempt_at: null })
    .where('campaign_id', '=', campaignId)
    .where('ab_rest', '=', true)
    .where('state', '=', 'queued')
    .execute();
}
