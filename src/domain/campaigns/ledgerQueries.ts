// SQL for freezing a campaign's audience into the per-recipient send ledger (campaign_recipients), the
// campaign's stored links, and skipping who is still queued on cancel. What the send workers do with the
// ledger afterwards is in delivery/ledgerQueries.ts. Every statement works on a whole batch.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { DB } from '../../db/schema.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';

/** A condition on the subscribers table (a segment's members), as the segments context builds it. */
export type SubscriberWhere = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

export async function replaceLinks(trx: Db, campaignId: string, urls: string[]): Promise<void> {
  await trx.deleteFrom('campaign_links').where('campaign_id', '=', campaignId).execute();
  if (urls.length > 0)
    await trx
      .insertInto('campaign_links')
      .values(urls.map((url, idx) => ({ campaign_id: campaignId, idx, url })))
      .execute();
}

export function links(db: Db, campaignId: string) {
  return db.selectFrom('campaign_links').select(['idx', 'url']).where('campaign_id', '=', campaignId).execute();
}

export async function existingSegments(trx: Db, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .selectFrom('segments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((r) => r.id);
}

/** One INSERT … SELECT: the active members of the campaign's groups or of `inSegments`, each once. */
export async function freezeAudience(
  trx: Db,
  c: CampaignRow,
  inSegments: SubscriberWhere | undefined,
  read: GroupRead,
): Promise<number> {
  const r = await trx
    .insertInto('campaign_recipients')
    .columns(['campaign_id', 'account_id', 'subscriber_id', 'email'])
    .expression(
      audience(trx, c.account_id, c.group_ids, inSegments, read)
        .select([
          sql<string>`${c.id}::uuid`.as('campaign_id'),
          sql<string>`${c.account_id}::uuid`.as('account_id'),
          'a.id',
          'a.email',
        ])
        .orderBy('a.id'),
    )
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Fresh planner statistics for the ledger. The send's statements find rows by id, but with statistics
 * from before a large freeze the planner takes the queued-rows index for nearly empty and walks all of it
 * for every mark (60 ms a statement at 50,000 queued rows, PostgreSQL busy on it for most of the send);
 * autovacuum gets to the table only after a minute or more, when a send of 100,000 is nearly over, and
 * PGlite has none. Inside a transaction it holds off other ANALYZEs and VACUUMs of the table (not its
 * writes) until the commit.
 */
export async function analyzeLedger(db: Db): Promise<void> {
  await sql`analyze campaign_recipients`.execute(db);
}

export interface Unchecked {
  subscriber_id: string;
  email: string;
}

/**
 * How many the audience freeze would take now, and among them the subscribers whose address nobody has
 * checked against the suppressions yet (few or none): one statement, so both describe the same moment.
 */
export async function audienceSize(
  db: Db,
  accountId: string,
  groupIds: string[],
  inSegments: SubscriberWhere | undefined,
  read: GroupRead,
): Promise<{ size: number; unchecked: Unchecked[] }> {
  // no transaction: its COMMIT would tick the change clock, and the count could not be kept (segments.counted).
  // Two subqueries of one statement rather than two aggregates of one pass: json_agg has no parallel form,
  // so with it every counted row went through the parallel workers' queue to the leader (0.6-0.7 s at
  // 900,000 against 0.35 s); the unchecked ones are found from suppression_checks, which holds few rows.
  const all = audience(db, accountId, groupIds, inSegments, read);
  const r = await db
    .selectNoFrom([
      all.select(sql<number>`count(*)::int`.as('n')).as('size'),
      all
        .where('c.subscriber_id', 'is not', null)
        .select(
          sql<Unchecked[]>`coalesce(json_agg(json_build_object('subscriber_id', a.id, 'email', a.email)), '[]')`.as(
            'u',
          ),
        )
        .as('unchecked'),
    ])
    .executeTakeFirstOrThrow();
  return { size: Number(r.size), unchecked: r.unchecked ?? [] };
}

/** The frozen ledger rows whose address nobody has checked yet, with the address as frozen. */
export function uncheckedFrozen(trx: Db, accountId: string, campaignId: string) {
  return trx
    .selectFrom('campaign_recipients as r')
    .innerJoin('suppression_checks as c', 'c.subscriber_id', 'r.subscriber_id')
    .where('r.campaign_id', '=', campaignId)
    .where('c.account_id', '=', accountId)
    .where('c.suppressed', 'is', null)
    .select(['r.id', 'r.subscriber_id', 'r.email'])
    .execute();
}

/**
 * Records what hashing found: a suppressed address stays marked, a clean one leaves the table. Only while
 * the subscriber still holds the address that was hashed: the row lock keeps it from changing until the
 * commit, and a change made meanwhile leaves the check open (its trigger asks again).
 */
export async function recordChecks(
  db: Db,
  accountId: string,
  answers: { subscriber_id: string; email: string; suppressed: boolean }[],
): Promise<void> {
  if (answers.length === 0) return;
  await sql`
    with answer as (
      select * from unnest(${answers.map((a) => a.subscriber_id)}::uuid[], ${answers.map((a) => a.email)}::text[],
        ${answers.map((a) => a.suppressed)}::boolean[]) as t(id, email, suppressed)
    ), still as (
      select s.id, answer.suppressed from subscribers s join answer on answer.id = s.id and answer.email = s.email
      where s.account_id = ${accountId}::uuid
      for share of s
    ), marked as (
      update suppression_checks c set suppressed = true from still
      where c.subscriber_id = still.id and still.suppressed and c.suppressed is null
    )
    delete from suppression_checks c using still
    where c.subscriber_id = still.id and not still.suppressed and c.suppressed is null`.execute(db);
}

/**
 * How the audience reads group membership. `rows`: the groups' ids on each subscriber row (member_of),
 * one pass over the account's subscribers; `members`: the memberships of the groups, an index probe per
 * member. Each is exact; which is faster depends on how large a share of the account the groups hold.
 */
export type GroupRead = 'rows' | 'members';

// Measured at 1,000,000 subscribers on PostgreSQL: reading every row costs about 0.3 µs a subscriber
// (0.25-0.35 s), probing about 5 µs a member, so the probe wins below a sixteenth of the account
const PROBE_BELOW_SHARE = 1 / 16;

export function groupReadFor(share: { memberships: number; subscribers: number }): GroupRead {
  return share.memberships < share.subscribers * PROBE_BELOW_SHARE ? 'members' : 'rows';
}

// who a campaign goes to, the one rule the freeze and the estimate share: active members of any of the
// groups or segments, each subscriber once, and none known to hold a suppressed address (the check marked
// so; addresses not checked yet are in, and ledger.ts hashes those few). A segment's matches that are also
// in a group are left out of the segment's part by member_of, so the two parts are disjoint without an
// anti-join over the memberships (and with `rows`, one pass serves both: no union at all). member_of may
// still name a deleted group (migration 20261127_0900): it is compared with the requested groups that
// exist, in the same statement.
function audience(
  db: Db,
  accountId: string,
  groupIds: string[],
  inSegments: SubscriberWhere | undefined,
  read: GroupRead,
) {
  const onRow = (eb: ExpressionBuilder<DB, 'subscribers'>) =>
    sql<SqlBool>`${eb.ref('subscribers.member_of')} && array(select g.id from groups g
      where g.account_id = ${accountId}::uuid and g.id = any(${groupIds}::uuid[]))`;
  const probe = (eb: ExpressionBuilder<DB, 'subscribers'>) =>
    eb.exists(
      eb
        .selectFrom('subscriber_groups')
        .select(sql.lit(1).as('one'))
        .whereRef('subscriber_groups.subscriber_id', '=', 'subscribers.id')
        .where('subscriber_groups.group_id', 'in', groupIds),
    );
  const active = db
    .selectFrom('subscribers')
    .select(['subscribers.id', 'subscribers.email'])
    .where('subscribers.account_id', '=', accountId)
    .where('subscribers.status', '=', 'active');
  let branches;
  if (groupIds.length === 0) branches = inSegments ? active.where(inSegments) : active.where(sql.lit(false));
  else if (!inSegments) branches = active.where(read === 'rows' ? onRow : probe);
  else if (read === 'rows') branches = active.where((eb) => eb.or([onRow(eb), inSegments(eb)]));
  else branches = active.where(probe).unionAll(active.where(inSegments).where((eb) => eb.not(onRow(eb))));
  return db
    .selectFrom(branches.as('a'))
    .leftJoin('suppression_checks as c', (join) =>
      join.onRef('c.subscriber_id', '=', 'a.id').on('c.account_id', '=', accountId),
    )
    .where('c.suppressed', 'is', null);
}

export async function removeRecipients(trx: Db, ids: number[]): Promise<void> {
  if (ids.length > 0) await trx.deleteFrom('campaign_recipients').where('id', 'in', ids).execute();
}

/** Cancel: nobody still queued gets the campaign (claimed or not). Rows in flight ('sending') get their outcome. */
export async function skipQueued(trx: Db, campaignId: string, reason: string): Promise<void> {
  await trx
    .updateTable('campaign_recipients')
    .set({ state: 'skipped', last_error: reason })
    .where('campaign_id', '=', campaignId)
    .where('state', '=', 'queued')
    .execute();
}

/**
 * A resend's audience, in one INSERT … SELECT: who the earlier campaign reached (sent) and who has not
 * opened it as a person (HUMAN_OPENED: a privacy proxy's load is not an open), still active, neither
 * unsubscribed, bounced nor complained from it, and not known to hold a suppressed address (the
 * unchecked ones are hashed after, as for every freeze).
 */
export async function freezeResendAudience(trx: Db, c: CampaignRow, sourceId: string): Promise<number> {
  const r = await sql`
    insert into campaign_recipients (campaign_id, account_id, subscriber_id, email)
    select ${c.id}::uuid, ${c.account_id}::uuid, s.id, s.email
    from campaign_recipients o
    join subscribers s on s.id = o.subscriber_id and s.account_id = ${c.account_id}::uuid
    left join suppression_checks k on k.subscriber_id = s.id and k.account_id = ${c.account_id}::uuid
    where o.campaign_id = ${sourceId}::uuid and o.account_id = ${c.account_id}::uuid and o.state = 'sent'
      and not (o.opens > o.machine_opens or o.clicked_at is not null)
      and o.unsubscribed_at is null and o.bounced_at is null and o.complained_at is null
      and s.status = 'active' and k.suppressed is null
    order by s.id`.execute(trx);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * Local-time delivery: each row due when its subscriber's zone (a name the database does not know counts
 * as none) or else the account's reaches the local date and hour; rows already past it are due now, or
 * skipped when the campaign says so.
 */
export async function scheduleLocalTimes(
  trx: Db,
  c: CampaignRow,
  localDate: string,
  localTime: string,
  past: 'send' | 'skip',
): Promise<void> {
  const wall = `${localDate} ${localTime}:00`;
  await sql`
    with zones as materialized (select name from pg_timezone_names),
    account as (select timezone from accounts where id = ${c.account_id}::uuid)
    update campaign_recipients r set
      next_attempt_at = ${wall}::timestamp at time zone coalesce(z.name, (select timezone from account), 'UTC')
    from subscribers s left join zones z on z.name = s.time_zone
    where r.campaign_id = ${c.id}::uuid and s.id = r.subscriber_id`.execute(trx);
  if (past === 'skip')
    await trx
      .updateTable('campaign_recipients')
      .set({ state: 'skipped', last_error: 'The local delivery time had passed when the campaign started' })
      .where('campaign_id', '=', c.id)
      .where('next_attempt_at', '<', sql<Date>`now()`)
      .execute();
  else
    await trx
      .updateTable('campaign_recipients')
      .set({ next_attempt_at: null })
      .where('campaign_id', '=', c.id)
      .where('next_attempt_at', '<', sql<Date>`now()`)
      .execute();
}
