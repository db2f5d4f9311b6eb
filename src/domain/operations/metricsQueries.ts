// What the metrics endpoint reads from the database at scrape time. Operator-wide on purpose (no account
// scope: nothing here names an account, an address or a key), and every query stays cheap at a million
// subscribers: each reads through a partial index or a small table, never a count of subscribers or a
// scan of a whole ledger. The ledger is read only for campaigns sending now or just finished.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { classify, type ReplyClass } from '../../mail/smtpReply.ts';

export interface LedgerCount {
  campaignId: string;
  state: string;
  count: number;
}

export interface SendingLedger {
  /** rows by state, per campaign that is sending or has just finished */
  states: LedgerCount[];
  /** rows that ended 'failed', by failure reason (bounced, blocked, rejected, expired, error) */
  failures: Record<string, number>;
  /** the last SMTP reply of each row that has one, by class ('accepted' for 2xx) */
  replies: Record<ReplyClass | 'accepted', number>;
  /** recipients of these campaigns whose message was accepted in the last minute */
  sentLastMinute: number;
  /** rows waiting again because their provider deferred them (421 / 4.7.x), by provider */
  deferredBy: Record<string, number>;
}

/** a campaign that finished this recently still shows, so a scrape every minute sees its final numbers */
export const RECENT_MINUTES = 5;

/**
 * One pass over the ledgers of the campaigns sending now or finished in the last RECENT_MINUTES (each
 * ledger read through its campaign_id index); older campaigns' ledgers are not read at all. The campaigns
 * table itself has one row per campaign, not per recipient.
 */
export async function sendingLedger(db: Db): Promise<SendingLedger> {
  // the ids first: with them as constants the planner sizes each ledger from its statistics (a join
  // estimated the sending campaigns at a handful of rows and sorted a million on disk)
  const campaigns = await sql<{ id: string }>`
    select id from campaigns
     where status = 'sending'
        or (status = 'sent' and finished_at >= now() - ${sql.raw(`interval '${RECENT_MINUTES} minutes'`)})`.execute(db);
  const ids = campaigns.rows.map((c) => c.id);
  const { rows } =
    ids.length === 0
      ? { rows: [] }
      : await sql<{
          campaign_id: string;
          state: string;
          failure: string | null;
          smtp_code: number | null;
          smtp_status: string | null;
          deferred_by: string | null;
          n: number;
          last_minute: number;
        }>`
    select campaign_id, state, failure, smtp_code, smtp_status,
           case when state = 'queued' then deferred_by end as deferred_by,
           count(*)::int as n,
           (count(*) filter (where sent_at >= now() - interval '1 minute'))::int as last_minute
      from campaign_recipients
     where campaign_id = any(${ids}::uuid[])
     group by 1, 2, 3, 4, 5, 6`.execute(db);
  const states = new Map<string, LedgerCount>();
  const failures: Record<string, number> = {};
  const replies: Record<ReplyClass | 'accepted', number> = {
    accepted: 0,
    hard: 0,
    deferred: 0,
    throttled: 0,
    blocked: 0,
    failed: 0,
  };
  let sentLastMinute = 0;
  const deferredBy: Record<string, number> = {};
  for (const r of rows) {
    if (r.deferred_by) deferredBy[r.deferred_by] = (deferredBy[r.deferred_by] ?? 0) + r.n;
    const key = `${r.campaign_id}\u0000${r.state}`;
    const s = states.get(key) ?? { campaignId: r.campaign_id, state: r.state, count: 0 };
    s.count += r.n;
    states.set(key, s);
    if (r.failure) failures[r.failure] = (failures[r.failure] ?? 0) + r.n;
    if (r.smtp_code !== null || r.smtp_status !== null) {
      const accepted = r.smtp_code !== null && r.smtp_code >= 200 && r.smtp_code < 300;
      replies[accepted ? 'accepted' : classify({ code: r.smtp_code, status: r.smtp_status })] += r.n;
    }
    sentLastMinute += r.last_minute;
  }
  return { states: [...states.values()], failures, replies, sentLastMinute, deferredBy };
}

export interface QueueDepth {
  queue: string;
  waiting: number;
  /** seconds since the oldest waiting job was created */
  oldestSeconds: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/i;

/**
 * Jobs not yet started (created or waiting for a retry) per pg-boss queue. `state < 'active'` is the
 * predicate of pg-boss's own partial index on each queue's partition, so only waiting jobs are read.
 */
export async function queueDepths(db: Db, bossSchema: string): Promise<QueueDepth[]> {
  if (!IDENTIFIER.test(bossSchema)) return [];
  const { rows } = await sql<{ name: string; waiting: number; oldest: number | null }>`
    select name, count(*)::int as waiting,
           extract(epoch from now() - min(created_on))::float8 as oldest
      from ${sql.table(`${bossSchema}.job`)}
     where state < 'active'
     group by name`.execute(db);
  return rows.map((r) => ({ queue: r.name, waiting: r.waiting, oldestSeconds: Math.max(0, r.oldest ?? 0) }));
}

export interface ImportTotals {
  /** import jobs by status */
  jobs: Record<string, number>;
  /** CSV/MCP rows the import workers have worked through, over every import kept */
  rowsProcessed: number;
  rowsFailed: number;
}

/** The imports table has one row per import job (not per CSV row), so summing its counters is cheap. */
export async function importTotals(db: Db): Promise<ImportTotals> {
  const rows = await db
    .selectFrom('imports')
    .select((eb) => [
      'status',
      eb.fn.countAll<number>().as('n'),
      sql<number>`coalesce(sum(processed_rows), 0)::int8`.as('processed'),
      sql<number>`coalesce(sum(failed_count), 0)::int8`.as('failed'),
    ])
    .groupBy('status')
    .execute();
  const jobs: Record<string, number> = {};
  let rowsProcessed = 0;
  let rowsFailed = 0;
  for (const r of rows) {
    jobs[r.status] = Number(r.n);
    rowsProcessed += Number(r.processed);
    rowsFailed += Number(r.failed);
  }
  return { jobs, rowsProcessed, rowsFailed };
}

export interface WebhookBacklog {
  pending: number;
  /** pending deliveries that failed at least once and wait for a retry */
  retrying: number;
  /** pending deliveries already due */
  due: number;
  oldestPendingSeconds: number;
}

/** Through the webhook_deliveries_due partial index: only what is still to deliver is read. */
export async function webhookBacklog(db: Db): Promise<WebhookBacklog> {
  const { rows } = await sql<{ pending: number; retrying: number; due: number; oldest: number | null }>`
    select count(*)::int as pending,
           (count(*) filter (where attempt_count > 0))::int as retrying,
           (count(*) filter (where next_attempt_at is null or next_attempt_at <= now()))::int as due,
           extract(epoch from now() - min(created_at))::float8 as oldest
      from webhook_deliveries
     where status = 'pending'`.execute(db);
  const r = rows[0]!;
  return { pending: r.pending, retrying: r.retrying, due: r.due, oldestPendingSeconds: Math.max(0, r.oldest ?? 0) };
}

export interface AutomationBacklog {
  active: number;
  /** active runs whose next step is already due */
  due: number;
  /** finished runs by how they ended, over every automation kept (each automation counts its own) */
  finished: { completed: number; canceled: number; failed: number };
}

/** Through the automation_runs_due partial index (status = 'active'); finished runs are not counted. */
export async function automationBacklog(db: Db): Promise<AutomationBacklog> {
  const { rows } = await sql<{ active: number; due: number }>`
    select count(*)::int as active,
           (count(*) filter (where next_run_at <= now()))::int as due
      from automation_runs
     where status = 'active'`.execute(db);
  // the automations' own counters, written with each run's end: one row per automation, not per run
  const ended = await sql<{ completed: number; canceled: number; failed: number }>`
    select coalesce(sum(runs_completed), 0)::int8 as completed,
           coalesce(sum(runs_canceled), 0)::int8 as canceled,
           coalesce(sum(runs_failed), 0)::int8 as failed
      from automations`.execute(db);
  const e = ended.rows[0]!;
  return {
    ...rows[0]!,
    finished: { completed: Number(e.completed), canceled: Number(e.canceled), failed: Number(e.failed) },
  };
}

export interface ProviderBackoff {
  provider: string;
  /** seconds until the provider is tried again (0 once that time has passed) */
  secondsLeft: number;
  /** how many times in a row it has deferred (the backoff doubles with each) */
  level: number;
}

/** The providers that answered 421 / 4.7.x lately: one row each, shared by every instance. */
export async function providerBackoffs(db: Db): Promise<ProviderBackoff[]> {
  const { rows } = await sql<{ provider: string; seconds_left: number; level: number }>`
    select provider, level, greatest(0, extract(epoch from until - now()))::float8 as seconds_left
      from provider_backoff`.execute(db);
  return rows.map((r) => ({ provider: r.provider, level: r.level, secondsLeft: r.seconds_left }));
}
