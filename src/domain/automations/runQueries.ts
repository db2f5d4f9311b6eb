// SQL for automation runs: starting them (from a batch of events, from the daily anniversary scan),
// leasing and locking them for the run worker, saving their progress, canceling them, and listing them.
// A run is unique per (automation, subscriber, trigger_event_id), so every start is an insert that does
// nothing the second time.
import { sql, type Updateable } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { AutomationRunsTable, RunStatus } from '../../db/schema/automations.ts';
import type { FeedBatch } from '../events/feed.ts';

// ---- starting runs ----

/**
 * Starts a run for each (enabled automation, event of the batch) whose trigger matches, in one
 * INSERT … SELECT, and counts them on their automations. How trigger_event_id is derived, and why opens
 * and clicks count only for campaign emails, is the trigger rule told in triggers.ts.
 */
export async function startRunsFromEvents(trx: Db, batch: FeedBatch): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with matched as (
      select e.account_id, a.id as automation_id, e.subscriber_id, e.type as event_type,
             case a.trigger->>'type'
               when 'campaign_opened' then md5(concat_ws(':', a.id, e.subscriber_id, 'open', e.data->>'campaign_id'))::uuid
               when 'link_clicked' then md5(concat_ws(':', a.id, e.subscriber_id, 'click', e.data->>'campaign_id', e.data->>'url'))::uuid
               else e.id
             end as trigger_event_id
        from events e
        join automations a on a.account_id = e.account_id and a.enabled and e.created_at >= a.enabled_at
        join subscribers s on s.id = e.subscriber_id and s.account_id = e.account_id
       where e.seq > ${batch.fromSeq} and e.seq <= ${batch.toSeq}
         and (
              (a.trigger->>'type' = 'subscriber_created' and e.type = 'subscriber.created'
                and (a.trigger->>'source' is null or a.trigger->>'source' = e.data->>'source'))
           or (a.trigger->>'type' = 'joined_group' and e.type = 'subscriber.added_to_group'
                and e.data->'group'->>'id' = a.trigger->>'group_id')
           or (a.trigger->>'type' = 'form_submitted' and e.type = 'form.submitted'
                and e.data->'form'->>'id' = a.trigger->>'form_id')
           or (a.trigger->>'type' = 'campaign_opened' and e.type = 'email.opened' and e.data->>'campaign_id' is not null
                and (a.trigger->>'campaign_id' is null or e.data->>'campaign_id' = a.trigger->>'campaign_id'))
           or (a.trigger->>'type' = 'link_clicked' and e.type = 'email.clicked' and e.data->>'campaign_id' is not null
                and (a.trigger->>'campaign_id' is null or e.data->>'campaign_id' = a.trigger->>'campaign_id')
                and (a.trigger->>'url' is null or e.data->>'url' = a.trigger->>'url'))
         )
    ), started as (
      insert into automation_runs (account_id, automation_id, subscriber_id, trigger_event_id, current_step, next_run_at, history)
      select account_id, automation_id, subscriber_id, trigger_event_id, '0', now(),
             jsonb_build_array(jsonb_build_object(
               'at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'type', 'trigger', 'result', 'started', 'event', event_type))
        from matched
      on conflict (automation_id, subscriber_id, trigger_event_id) do nothing
      returning automation_id
    ), counted as (
      update automations a set runs_started = a.runs_started + c.n
        from (select automation_id, count(*)::int as n from started group by automation_id) c
       where a.id = c.automation_id
      returning c.n
    )
    select coalesce(sum(n), 0)::int as n from counted`.execute(trx);
  return rows[0]?.n ?? 0;
}

/** Enabled date_anniversary automations not yet scanned on their account's today, with that day. */
export async function anniversariesDue(db: Db): Promise<{ id: string; today: string }[]> {
  const { rows } = await sql<{ id: string; today: string }>`
    select a.id, to_char((now() at time zone acc.timezone)::date, 'YYYY-MM-DD') as today
      from automations a join accounts acc on acc.id = a.account_id
     where a.enabled and a.trigger->>'type' = 'date_anniversary'
       and (a.scanned_on is null or a.scanned_on < (now() at time zone acc.timezone)::date)`.execute(db);
  return rows;
}

/** Marks today's scan as taken; undefined when another instance took it first (or the automation was disabled). */
export function claimAnniversaryScan(trx: Db, automationId: string, today: string) {
  return trx
    .updateTable('automations')
    .set({ scanned_on: today })
    .where('id', '=', automationId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('scanned_on', 'is', null), eb('scanned_on', '<', today)]))
    .returning(['account_id', sql<string>`trigger->>'field'`.as('field')])
    .executeTakeFirst();
}

/**
 * Starts a run for each subscriber whose date field has today's month and day (29 February counts on
 * 28 February in other years), one per subscriber and year, and counts them on the automation.
 */
export async function startAnniversaryRuns(
  trx: Db,
  automationId: string,
  scan: { account_id: string; field: string },
  today: string,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with started as (
      insert into automation_runs (account_id, automation_id, subscriber_id, trigger_event_id, current_step, next_run_at, history)
      select s.account_id, ${automationId}::uuid, s.id,
             md5(concat_ws(':', ${automationId}::text, s.id, 'anniversary', left(${today}, 4)))::uuid, '0', now(),
             jsonb_build_array(jsonb_build_object(
               'at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'type', 'trigger', 'result', 'started', 'event', 'date_anniversary', 'date', s.custom_fields->>${scan.field}::text))
        from subscribers s
       where s.account_id = ${scan.account_id}
         and s.custom_fields->>${scan.field}::text ~ '^\\d{4}-\\d{2}-\\d{2}'
         and (substr(s.custom_fields->>${scan.field}::text, 6, 5) = substr(${today}, 6, 5)
              or (substr(s.custom_fields->>${scan.field}::text, 6, 5) = '02-29' and substr(${today}, 6, 5) = '02-28'
                  and to_char(${today}::date + 1, 'MM-DD') = '03-01'))
      on conflict (automation_id, subscriber_id, trigger_event_id) do nothing
      returning 1
    )
    update automations set runs_started = runs_started + (select count(*) from started)
     where id = ${automationId}::uuid
    returning (select count(*) from started)::int as n`.execute(trx);
  return rows[0]?.n ?? 0;
}

// ---- the run worker ----

/**
 * Leases up to `limit` runs that are due (FOR UPDATE SKIP LOCKED: instances never share one), for the
 * worker instance `instanceId` when given: its supervisor-seen death releases them before the lease ends.
 */
export async function claimDueRuns(
  db: Db,
  limit: number,
  leaseMs: number,
  instanceId: string | null = null,
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    update automation_runs
       set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), locked_by = ${instanceId}::uuid
     where id in (
       select id from automation_runs
        where status = 'active' and next_run_at <= now() and (locked_until is null or locked_until < now())
        order by next_run_at
        limit ${limit}
        for update skip locked)
    returning id`.execute(db);
  return rows.map((r) => r.id);
}

export async function releaseRun(db: Db, runId: string): Promise<void> {
  await db
    .updateTable('automation_runs')
    .set({ locked_until: null, locked_by: null })
    .where('id', '=', runId)
    .execute();
}

/** The run, locked, while it is still active; undefined once it was canceled or finished. */
export function lockActiveRun(trx: Db, runId: string) {
  return trx
    .selectFrom('automation_runs')
    .selectAll()
    .where('id', '=', runId)
    .where('status', '=', 'active')
    .forUpdate()
    .executeTakeFirst();
}

/** The run, locked, whatever its status. */
export function lockRun(trx: Db, runId: string) {
  return trx.selectFrom('automation_runs').selectAll().where('id', '=', runId).forUpdate().executeTakeFirst();
}

export async function updateRun(trx: Db, runId: string, changes: Updateable<AutomationRunsTable>): Promise<void> {
  await trx.updateTable('automation_runs').set(changes).where('id', '=', runId).execute();
}

/** Locks every run of an automation, in id order, so two callers taking them all never cross. */
export async function lockRunsOf(trx: Db, accountId: string, automationId: string): Promise<void> {
  await trx
    .selectFrom('automation_runs')
    .select('id')
    .where('account_id', '=', accountId)
    .where('automation_id', '=', automationId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Cancels the automation's active runs, appending `entry` (a JSON array) to each history; returns how
 * many. The rows are locked in id order first, so two cancels of one automation never deadlock.
 */
export async function cancelActiveRuns(
  trx: Db,
  accountId: string,
  automationId: string,
  entry: string,
): Promise<number> {
  const r = await trx
    .updateTable('automation_runs')
    .set({
      status: 'canceled',
      next_run_at: null,
      step_state: null,
      finished_at: new Date(),
      updated_at: new Date(),
      history: sql<string>`history || ${entry}::jsonb`,
    })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('automation_runs')
        .select('id')
        .where('account_id', '=', accountId)
        .where('automation_id', '=', automationId)
        .where('status', '=', 'active')
        .orderBy('id')
        .forUpdate(),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

// ---- reading runs ----

export function activeRunCounts(db: Db, accountId: string, automationIds: string[]) {
  return db
    .selectFrom('automation_runs')
    .select(['automation_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('automation_id', 'in', automationIds)
    .where('status', '=', 'active')
    .groupBy('automation_id')
    .execute();
}

function runsOf(db: Db, accountId: string, automationId: string, status: RunStatus | undefined) {
  return db
    .selectFrom('automation_runs as r')
    .where('r.account_id', '=', accountId)
    .where('r.automation_id', '=', automationId)
    .$if(status !== undefined, (qb) => qb.where('r.status', '=', status!));
}

/** Runs newest first, each with its subscriber's email. */
export function runPage(
  db: Db,
  accountId: string,
  automationId: string,
  status: RunStatus | undefined,
  limit: number,
  offset: number,
) {
  return runsOf(db, accountId, automationId, status)
    .innerJoin('subscribers as s', 's.id', 'r.subscriber_id')
    .select([
      'r.id',
      'r.subscriber_id',
      's.email',
      'r.status',
      'r.current_step',
      'r.next_run_at',
      'r.history',
      'r.emails_sent',
      'r.trigger_event_id',
      'r.created_at',
      'r.updated_at',
      'r.finished_at',
    ])
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countRuns(
  db: Db,
  accountId: string,
  automationId: string,
  status: RunStatus | undefined,
): Promise<number> {
  const { total } = await runsOf(db, accountId, automationId, status)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}
