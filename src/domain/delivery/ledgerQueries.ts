// SQL of the send ledger's delivery side: the workers' claims of batches, the one statement that writes
// marks and outcomes, the recovery of a dead worker's rows, heartbeats, and the providers' shared
// backoffs. Every statement works on a whole batch: never a query per recipient. Freezing the audience
// into the ledger is the campaigns context's (campaigns/ledgerQueries.ts).
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { executeNamed } from '../../db/prepared.ts';
import type { RecipientFailure } from '../../db/schema/campaigns.ts';
import { inTransaction } from '../transaction.ts';

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
  /** the A/B variant the row is sent (null: the campaign as it is) */
  variant?: number | null;
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
        select cr.id, cr.subscriber_id, cr.email, cr.attempts + 1 as attempts, cr.variant,
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

/**
 * Takes `n` tokens from the one bucket row every instance shares, refilled at `rate` per second since its
 * last use; capacity = one chunk of `n`. Returns the balance, negative when this take overdrew it.
 */
export async function takeSendTokens(db: Db, n: number, rate: number): Promise<number> {
  const r = await sql<{ tokens: number }>`
    update send_rate set
      tokens = least(${n}::float8, tokens + extract(epoch from (clock_timestamp() - updated_at)) * ${rate}::float8) - ${n}::float8,
      updated_at = clock_timestamp()
    where id = 1 returning tokens`.execute(db);
  return Number(r.rows[0]?.tokens ?? 0);
}
