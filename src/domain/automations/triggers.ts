// Starts automation runs: from the events log (one INSERT … SELECT per batch, matching every enabled
// automation's trigger at once), and from the daily date_anniversary scan. A run is unique per
// (automation, subscriber, trigger_event_id), so matching a batch twice starts nothing twice.
// trigger_event_id is the event's id, except where one run per subscriber is wanted for repeated events:
// campaign_opened (per campaign), link_clicked (per campaign and URL) and date_anniversary (per year)
// derive it from those, so a second open of the same campaign does not start the series again.
// campaign_opened and link_clicked match opens and clicks of CAMPAIGN emails only (events with a
// campaign_id): an automation's own emails are tracked too, but letting them start runs would let an
// automation feed itself (or two feed each other) from the very emails they send.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { FeedBatch } from '../events/feed.ts';
import { inTransaction } from '../transaction.ts';

const STARTED = JSON.stringify([{ type: 'run', result: 'started' }]);

/** Starts a run for each (enabled automation, event of the batch) whose trigger matches. */
export async function startFromEvents(trx: Db, batch: FeedBatch): Promise<number> {
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

/**
 * date_anniversary: once per account-local day and automation, starts a run for each subscriber whose
 * date field has today's month and day (29 February counts on 28 February in other years).
 * Returns how many runs started.
 */
export async function scanAnniversaries(db: Db): Promise<number> {
  const due = await sql<{ id: string; today: string }>`
    select a.id, to_char((now() at time zone acc.timezone)::date, 'YYYY-MM-DD') as today
      from automations a join accounts acc on acc.id = a.account_id
     where a.enabled and a.trigger->>'type' = 'date_anniversary'
       and (a.scanned_on is null or a.scanned_on < (now() at time zone acc.timezone)::date)`.execute(db);
  let total = 0;
  for (const { id, today } of due.rows) total += await inTransaction(db, (trx) => scanOne(trx, id, today));
  return total;
}

async function scanOne(trx: Db, automationId: string, today: string): Promise<number> {
  // claim today's scan first: a second instance scanning at the same moment finds scanned_on = today
  const claimed = await trx
    .updateTable('automations')
    .set({ scanned_on: today })
    .where('id', '=', automationId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('scanned_on', 'is', null), eb('scanned_on', '<', today)]))
    .returning(['account_id', sql<string>`trigger->>'field'`.as('field')])
    .executeTakeFirst();
  if (!claimed) return 0;
  const { rows } = await sql<{ n: number }>`
    with started as (
      insert into automation_runs (account_id, automation_id, subscriber_id, trigger_event_id, current_step, next_run_at, history)
      select s.account_id, ${automationId}::uuid, s.id,
             md5(concat_ws(':', ${automationId}::text, s.id, 'anniversary', left(${today}, 4)))::uuid, '0', now(),
             jsonb_build_array(jsonb_build_object(
               'at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'type', 'trigger', 'result', 'started', 'event', 'date_anniversary', 'date', s.custom_fields->>${claimed.field}::text))
        from subscribers s
       where s.account_id = ${claimed.account_id}
         and s.custom_fields->>${claimed.field}::text ~ '^\\d{4}-\\d{2}-\\d{2}'
         and (substr(s.custom_fields->>${claimed.field}::text, 6, 5) = substr(${today}, 6, 5)
              or (substr(s.custom_fields->>${claimed.field}::text, 6, 5) = '02-29' and substr(${today}, 6, 5) = '02-28'
                  and to_char(${today}::date + 1, 'MM-DD') = '03-01'))
      on conflict (automation_id, subscriber_id, trigger_event_id) do nothing
      returning 1
    )
    update automations set runs_started = runs_started + (select count(*) from started)
     where id = ${automationId}::uuid
    returning (select count(*) from started)::int as n`.execute(trx);
  return rows[0]?.n ?? 0;
}
