// SQL of sending-domain warm-up: the plans (one per account and domain) and the per-day count of claimed
// campaign rows, which moves once per claimed batch, never per message.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { WarmupPlanRow } from '../../db/schema/warmup.ts';

const plans = ownedRows('warmup_plans');

export type PlanRow = WarmupPlanRow;

export interface NewPlanRow {
  account_id: string;
  domain: string;
  start_date: string;
  first_day_cap: number;
  growth: number;
  days: number;
}

/** The new plan, or undefined when the account already has one for the domain. */
export function insertPlan(db: Db, row: NewPlanRow): Promise<PlanRow | undefined> {
  return db
    .insertInto('warmup_plans')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'domain']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findPlan(db: Db, accountId: string, id: string): Promise<PlanRow | undefined> {
  return plans.find(db, accountId, id);
}

export function listPlans(db: Db, accountId: string): Promise<PlanRow[]> {
  return db.selectFrom('warmup_plans').selectAll().where('account_id', '=', accountId).orderBy('domain').execute();
}

export function removePlan(db: Db, accountId: string, id: string): Promise<{ id: string } | undefined> {
  return plans.remove(db, accountId, id);
}

export function accountTimezone(db: Db, accountId: string): Promise<string> {
  return db
    .selectFrom('accounts')
    .select('timezone')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow()
    .then((r) => r.timezone);
}

/**
 * The plan for the domain a campaign sends from — its own from_email, else the account's default sender,
 * else `fallbackAddress` (MAIL_FROM), as the message's From is resolved — with the account's time zone and
 * the campaign's status; undefined when the campaign is not the account's. `plan` is null without a plan.
 */
export async function planOfCampaign(
  db: Db,
  accountId: string,
  campaignId: string,
  fallbackAddress: string,
): Promise<{ status: string; timezone: string; plan: PlanRow | null } | undefined> {
  const r = await sql<{ status: string; timezone: string; plan: PlanRow | null }>`
    select c.status, a.timezone, (
      select to_jsonb(p) from warmup_plans p
      where p.account_id = c.account_id
        and p.domain = lower(substring(coalesce(nullif(c.from_email, ''), nullif(a.default_from_email, ''), ${fallbackAddress}::text) from '@([^@]+)$'))
    ) as plan
    from campaigns c join accounts a on a.id = c.account_id
    where c.id = ${campaignId}::uuid and c.account_id = ${accountId}::uuid`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  // to_jsonb gives created_at as text; the rest of the domain reads it as a Date
  const plan = row.plan ? { ...row.plan, created_at: new Date(row.plan.created_at) } : null;
  return { ...row, plan };
}

/** What has been claimed from the domain on these days (days without a row are absent). */
export async function usage(db: Db, accountId: string, domain: string, days: string[]): Promise<Map<string, number>> {
  if (days.length === 0) return new Map();
  const rows = await db
    .selectFrom('warmup_usage')
    .select(['day', 'claimed'])
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('day', 'in', days)
    .execute();
  return new Map(rows.map((r) => [r.day, r.claimed]));
}

/**
 * Takes up to `want` of the day's `cap` and returns how many it got. The row lock taken by the inner
 * select makes two lanes (or two instances) reserving at once see each other's share, so together they
 * never pass the cap.
 */
export async function reserve(
  db: Db,
  key: { account_id: string; domain: string; day: string },
  want: number,
  cap: number,
): Promise<number> {
  await db
    .insertInto('warmup_usage')
    .values({ ...key, claimed: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'domain', 'day']).doNothing())
    .execute();
  const r = await sql<{ granted: number }>`
    update warmup_usage u set claimed = greatest(o.claimed, least(o.claimed + ${want}::int, ${cap}::int))
    from (
      select claimed from warmup_usage
      where account_id = ${key.account_id}::uuid and domain = ${key.domain} and day = ${key.day}::date
      for update
    ) o
    where u.account_id = ${key.account_id}::uuid and u.domain = ${key.domain} and u.day = ${key.day}::date
    returning u.claimed - o.claimed as granted`.execute(db);
  return Number(r.rows[0]?.granted ?? 0);
}

/** Gives back what a claim reserved and did not use (fewer rows were due than reserved). */
export async function giveBack(
  db: Db,
  key: { account_id: string; domain: string; day: string },
  n: number,
): Promise<void> {
  if (n <= 0) return;
  await db
    .updateTable('warmup_usage')
    .set((eb) => ({ claimed: sql<number>`greatest(0, ${eb.ref('claimed')} - ${n}::int)` }))
    .where('account_id', '=', key.account_id)
    .where('domain', '=', key.domain)
    .where('day', '=', key.day)
    .execute();
}

/** How many of the campaign's rows are queued and not claimed by a worker (the ones a warm-up can hold back). */
export async function queuedCount(db: Db, accountId: string, campaignId: string): Promise<number> {
  const r = await db
    .selectFrom('campaign_recipients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', campaignId)
    .where('account_id', '=', accountId)
    .where('state', '=', 'queued')
    .where('worker_id', 'is', null)
    // a claimed row stays 'queued' until its message goes: it is inside a claim's id range (send_claims)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('send_claims as k')
            .select(sql`1`.as('one'))
            .whereRef('k.campaign_id', '=', 'campaign_recipients.campaign_id')
            .whereRef('k.lo', '<=', 'campaign_recipients.id')
            .whereRef('k.hi', '>=', 'campaign_recipients.id'),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
