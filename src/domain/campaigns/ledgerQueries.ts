// SQL for the per-recipient send ledger (campaign_recipients), the campaign's stored links, the send
// workers' claims and heartbeats. Every statement works on a whole batch: never a query per recipient.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.ts';
import { executeNamed } from '../../db/prepared.ts';
import type { DB } from '../../db/schema.ts';
import type { CampaignRow, RecipientFailure } from '../../db/schema/campaigns.ts';
import { inTransaction } from '../transaction.ts';

/** A condition on the subscribers table (a segment's members), as the segments context builds it. */
export type SubscriberWhere = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

export interface Claimed {
  id: number;
  subscriber_id: string;
  email: string;
  attempts: number;
  /** the subscriber as it is now (what templates see); status decides whether they still get it */
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  custom_fields: Record<string, unknown>;
  created_at: Date;
  /** the Message-ID of this attempt's message, set when the row is marked 'sending' */
  message_id?: string;
}

/** The mail server's reply as stored on the row (smtp_code, smtp_status, smtp_reply). */
export interface StoredReply {
  code: number | null;
  status: string | null;
  reply: string;
}

export type Outcome =
  | { id: number; state: 'sent'; message_id: string; reply?: StoredReply }
  | {
      id: number;
      state: 'failed' | 'skipped';
      error: string;
      /** why a failed row failed; skipped rows have none */
      failure?: RecipientFailure;
      reply?: StoredReply;
      /** an 'expired' row counts as a soft bounce of its subscriber, toward this many in a row (0: never) */
      soft_bounce_limit?: number;
    }
  | {
      id: number;
      state: 'queued';
      error: string;
      retry_in_ms: number;
      release?: boolean;
      reply?: StoredReply;
      /** what the reply was taken for: 'throttled' when the provider wants fewer messages */
      reply_class?: 'deferred' | 'throttled';
    };

/** A failed row whose subscriber the bounce rules still have to see (hard bounce, expired deferral). */
export interface FollowUp {
  id: number;
  account_id: string;
  campaign_id: string;
  subscriber_id: string;
  email: string;
  message_id: string | null;
  failure: 'bounced' | 'expired';
  smtp_status: string | null;
}

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

export interface Claim {
  /** the claim's row in send_claims, dropped once every row of the batch has its outcome (none: no rows) */
  id: number | null;
  rows: Claimed[];
}

/**
 * Claims up to `limit` due queued rows of a campaign that is still sending for this worker: one row in
 * send_claims names their id range, and the other lanes skip the queued rows inside it; the ledger rows
 * are not written (they stay 'queued' until `write` marks them 'sending' as their messages go to SMTP).
 * Claims of one campaign are taken one at a time (a transaction lock), so two lanes never read the same
 * rows. Returns each row with its subscriber's current fields, so a batch costs one statement;
 * `attempts` is the attempt the row's send will be.
 */
export async function claim(
  db: Db,
  campaignId: string,
  workerId: string,
  limit: number,
  /** only rows above this id: the caller's cursor past what it has claimed (0: from the first row) */
  after = 0,
): Promise<Claim> {
  const r = await inTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('mailgrove.send_claim'), hashtext(${campaignId}::text))`.execute(
      trx,
    );
    return sql<Claimed & { claim_id: number | null }>`
      with live as materialized (
        -- read once per claim: probed per candidate row, the index of send_claims (whose deleted claims
        -- stay until vacuum) took PostgreSQL 40.2 CPU s for 100,000 recipients, 29.8 s with this
        select lo, hi from send_claims where campaign_id = ${campaignId}::uuid
      ), picked as (
        select cr.id, cr.subscriber_id, cr.email, cr.attempts + 1 as attempts,
          s.first_name, s.last_name, s.phone, s.status, s.custom_fields, s.created_at
        from campaign_recipients cr join subscribers s on s.id = cr.subscriber_id
        where cr.campaign_id = ${campaignId}::uuid and cr.state = 'queued' and cr.worker_id is null
          and cr.id > ${after}
          and (cr.next_attempt_at is null or cr.next_attempt_at <= now())
          and exists (select 1 from campaigns c where c.id = cr.campaign_id and c.status = 'sending')
          and not exists (select 1 from live k where cr.id between k.lo and k.hi)
        order by cr.id
        limit ${limit}
      ), claimed as (
        insert into send_claims (worker_id, campaign_id, lo, hi)
        select ${workerId}::uuid, ${campaignId}::uuid, min(id), max(id) from picked having count(*) > 0
        returning id
      )
      select picked.*, (select id from claimed) as claim_id from picked order by picked.id`.execute(trx);
  });
  // each row carries the claim's id (one statement); it stays on them, unused
  return { id: r.rows[0]?.claim_id ?? null, rows: r.rows };
}

/**
 * Claimed rows that will not be sent now because their provider is backing off: back to the queue,
 * due at `until`, with the provider that deferred them (the progress shows it), the attempt not counted.
 */
export async function defer(
  db: Db,
  workerId: string,
  rows: { id: number; provider: string; until: Date }[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    update campaign_recipients r set
      state = 'queued', worker_id = null, deferred_by = v.provider, next_attempt_at = v.until,
      attempts = r.attempts - (r.state = 'sending')::int
    from unnest(${rows.map((x) => x.id)}::bigint[], ${rows.map((x) => x.provider)}::text[],
      ${rows.map((x) => x.until.toISOString())}::timestamptz[]) as v(id, provider, until)
    where r.id = v.id
      and ((r.state = 'queued' and r.worker_id is null) or (r.state = 'sending' and r.worker_id = ${workerId}::uuid))`.execute(
    db,
  );
}

/** A claimed row whose message goes to SMTP next, with that message's Message-ID. */
export interface Mark {
  id: number;
  message_id: string;
}

/** What one `write` does: outcomes, rows to mark 'sending', claims whose batches are done. */
export interface Writes {
  outcomes: Outcome[];
  /** claimed rows whose messages go to SMTP next */
  marks: Mark[];
  /** claims (send_claims ids) whose every row has its outcome in this write or an earlier one */
  done: number[];
}

/**
 * One statement for everything a send worker has to write at a time: the outcomes and their email.sent
 * events, the 'sending' marks of the next messages (an attempt each, committed before their SMTP call),
 * and the claims whose batches are finished. Outcomes change only rows this worker holds: its 'sending'
 * rows, or claimed rows it never marked (still 'queued'); a row the recovery marked 'interrupted'
 * meanwhile stays so (counted, never re-sent). `release` puts a row back untouched (it was never handed
 * to SMTP) without counting the attempt. A mark takes only a row still queued and due, so a row cancelled
 * meanwhile (skipped) or marked by another worker is not this one's to send: `marked` has the rows that
 * were marked, with the attempt their send is.
 */
export async function write(
  db: Db,
  workerId: string,
  w: Writes,
): Promise<{ n: number; followUps: FollowUp[]; marked: Map<number, number> }> {
  const { outcomes, marks, done } = w;
  const col = <T>(f: (o: Outcome) => T) => outcomes.map(f);
  const r = await executeNamed(
    db,
    sql<{ n: number; follow_ups: FollowUp[] | null; marked: [number, number][] | null }>`
    with v as (
      select * from unnest(
        ${col((o) => o.id)}::bigint[], ${col((o) => o.state)}::text[], ${col((o) => (o.state === 'sent' ? o.message_id : null))}::text[],
        ${col((o) => (o.state === 'sent' ? null : o.error))}::text[], ${col((o) => (o.state === 'queued' ? o.retry_in_ms : 0))}::int[],
        ${col((o) => (o.state === 'queued' && o.release ? 1 : 0))}::int[],
        ${col((o) => o.reply?.code ?? null)}::int[], ${col((o) => o.reply?.status ?? null)}::text[],
        ${col((o) => o.reply?.reply ?? null)}::text[], ${col((o) => (o.state === 'failed' ? (o.failure ?? null) : null))}::text[]
      ) as t(id, state, message_id, error, retry_ms, release, smtp_code, smtp_status, smtp_reply, failure)
    ), upd as (
      update campaign_recipients r set
        state = v.state, worker_id = null, message_id = coalesce(v.message_id, r.message_id), last_error = v.error,
        smtp_code = case when v.release = 1 then r.smtp_code else v.smtp_code end,
        smtp_status = case when v.release = 1 then r.smtp_status else v.smtp_status end,
        smtp_reply = case when v.release = 1 then r.smtp_reply else v.smtp_reply end,
        failure = v.failure,
        sent_at = case when v.state = 'sent' then now() else r.sent_at end,
        attempts = r.attempts - case when r.state = 'sending' then v.release else 0 end,
        next_attempt_at = case when v.state = 'queued' and v.retry_ms > 0 then now() + v.retry_ms * interval '1 millisecond' else null end
      from v
      where r.id = v.id
        and ((r.state = 'sending' and r.worker_id = ${workerId}::uuid) or (r.state = 'queued' and r.worker_id is null))
      returning r.id, r.account_id, r.campaign_id, r.subscriber_id, r.email, r.state, r.message_id, r.failure, r.smtp_status
    ), ev as (
      insert into events (account_id, type, subscriber_id, data)
      select account_id, 'email.sent', subscriber_id,
        jsonb_build_object('campaign_id', campaign_id, 'subscriber', jsonb_build_object('id', subscriber_id, 'email', email), 'message_id', message_id)
      from upd where state = 'sent'
    ), mark as (
      -- the Message-ID is known before the message goes: an open, a click or a bounce that comes back before
      -- the outcome is written still finds the message it belongs to
      update campaign_recipients r set state = 'sending', worker_id = ${workerId}::uuid, attempts = r.attempts + 1,
        message_id = m.message_id
      from unnest(${marks.map((m) => m.id)}::bigint[], ${marks.map((m) => m.message_id)}::text[]) as m(id, message_id)
      where r.id = m.id and r.state = 'queued' and r.worker_id is null
        and (r.next_attempt_at is null or r.next_attempt_at <= now())
      returning r.id, r.attempts
    ), dropped as (
      delete from send_claims where id = any(${done}::bigint[]) and worker_id = ${workerId}::uuid
    )
    select (select count(*) from upd)::int as n,
      (select json_agg(json_build_object('id', id, 'account_id', account_id, 'campaign_id', campaign_id,
        'subscriber_id', subscriber_id, 'email', email, 'message_id', message_id, 'failure', failure,
        'smtp_status', smtp_status)) from upd where failure in ('bounced', 'expired')) as follow_ups,
      (select json_agg(json_build_array(id, attempts)) from mark) as marked`,
  );
  const row = r.rows[0];
  const marked = new Map<number, number>();
  for (const [id, attempts] of row?.marked ?? []) marked.set(Number(id), Number(attempts));
  return { n: row?.n ?? 0, followUps: row?.follow_ups ?? [], marked };
}

/** 'sending' → 'sent' when nobody is queued or in flight; undefined when not (or already done). */
export function markSentIfDone(trx: Db, campaignId: string) {
  return trx
    .updateTable('campaigns')
    .set({ status: 'sent', finished_at: new Date(), updated_at: new Date() })
    .where('id', '=', campaignId)
    .where('status', '=', 'sending')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('campaign_recipients')
            .select(sql.lit(1).as('one'))
            .where('campaign_id', '=', campaignId)
            .where('state', 'in', ['queued', 'sending']),
        ),
      ),
    )
    .returning(['id', 'name', 'account_id'])
    .executeTakeFirst();
}

/**
 * Crash rule: the claims of a worker that no longer heartbeats (or, with `allButMe`, of any other worker:
 * PGlite allows one process, so at its start every claim is orphaned) are dropped; the rows it left
 * 'sending' in them become 'interrupted'. SMTP may have accepted them; a duplicate campaign email costs
 * more than a missing one. The rows it had only claimed never reached SMTP: they are queued as they were
 * (`released` counts them).
 */
export async function interruptOrphans(
  db: Db,
  opts: { leaseMs: number; me: string; allButMe?: boolean },
): Promise<{ interrupted: number; released: number }> {
  // nearly always nobody died: asked first, because the statement below plans its ledger updates as hash
  // joins that read the whole ledger before finding the orphans empty (30-50 ms at 60,000 rows, each beat)
  // a claim of send_claims k whose worker is gone
  const orphaned = sql`k.worker_id <> ${opts.me}::uuid and (${opts.allButMe ?? false} or k.worker_id not in (
    select id from send_workers where heartbeat_at > now() - ${opts.leaseMs} * interval '1 millisecond'))`;
  const orphans = await sql`select 1 from send_claims k where ${orphaned} limit 1`.execute(db);
  if (orphans.rows.length === 0) return { interrupted: 0, released: 0 };
  const r = await sql<{ interrupted: number; released: number }>`
    with dead as (
      delete from send_claims k where ${orphaned}
      returning k.worker_id, k.campaign_id, k.lo, k.hi
    ), upd as (
      update campaign_recipients r set state = 'interrupted', worker_id = null,
        last_error = 'Interrupted: the worker stopped mid-send; not sent again to avoid a duplicate'
      from dead
      where r.campaign_id = dead.campaign_id and r.id between dead.lo and dead.hi
        and r.state = 'sending' and r.worker_id = dead.worker_id
      returning 1
    ), back as (
      -- rows the engine before send_claims marked as claimed on the row itself
      update campaign_recipients r set worker_id = null
      from dead
      where r.campaign_id = dead.campaign_id and r.id between dead.lo and dead.hi
        and r.state = 'queued' and r.worker_id = dead.worker_id
    )
    select (select count(*) from upd)::int as interrupted,
      (select count(*) from campaign_recipients r join dead
        on r.campaign_id = dead.campaign_id and r.id between dead.lo and dead.hi and r.state = 'queued')::int as released`.execute(
    db,
  );
  return { interrupted: r.rows[0]?.interrupted ?? 0, released: r.rows[0]?.released ?? 0 };
}

export async function heartbeat(db: Db, workerId: string): Promise<void> {
  await sql`insert into send_workers (id, heartbeat_at) values (${workerId}::uuid, now())
    on conflict (id) do update set heartbeat_at = now()`.execute(db);
}

export async function retireWorker(db: Db, workerId: string, leaseMs: number): Promise<void> {
  await sql`delete from send_workers where id = ${workerId}::uuid or heartbeat_at < now() - ${leaseMs * 10} * interval '1 millisecond'`.execute(
    db,
  );
}

/** Campaigns currently sending, oldest first (what the workers have to do). */
export async function sendingCampaigns(db: Db, limit = 50): Promise<{ id: string; account_id: string }[]> {
  return db
    .selectFrom('campaigns')
    .select(['id', 'account_id'])
    .where('status', '=', 'sending')
    .orderBy('started_at')
    .limit(limit)
    .execute();
}

/**
 * A provider answered 'throttled': nobody sends to it until the returned time. Backing off again soon
 * after the last backoff ended doubles the wait (at most `maxMs`); a provider quiet for longer than
 * `maxMs` since starts again at `baseMs`. A backoff still running is kept as it is (the other in-flight
 * messages to the provider answer the same at the same moment).
 */
export async function backOff(db: Db, provider: string, baseMs: number, maxMs: number): Promise<Date> {
  const r = await sql<{ until: Date }>`
    insert into provider_backoff as b (provider, level, until, updated_at)
    values (${provider}, 1, now() + ${Math.min(baseMs, maxMs)} * interval '1 millisecond', now())
    on conflict (provider) do update set
      level = case when b.until > now() then b.level when b.until > now() - ${maxMs} * interval '1 millisecond' then b.level + 1 else 1 end,
      until = case when b.until > now() then b.until
        else now() + least(${maxMs}::float8, ${baseMs}::float8 * power(2, case when b.until > now() - ${maxMs} * interval '1 millisecond' then b.level else 0 end)) * interval '1 millisecond' end,
      updated_at = now()
    returning until`.execute(db);
  return new Date(r.rows[0]!.until);
}

/** The providers backing off now, with until when. */
export async function backoffs(db: Db): Promise<{ provider: string; until: Date }[]> {
  const r = await sql<{ provider: string; until: Date }>`
    select provider, until from provider_backoff where until > now()`.execute(db);
  return r.rows.map((x) => ({ provider: x.provider, until: new Date(x.until) }));
}
