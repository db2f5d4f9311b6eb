// SQL the import worker runs: what a batch needs first, the rows it checks, the batch itself as one
// statement (subscribers + memberships + events + the batch's staged failures, so a batch costs one round
// trip), and the end of the job. Staged rows are read through queries.ts's staged() and dupsOf().
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ImportError, ImportRow } from '../../db/schema/imports.ts';
import { ADDRESS_ONLY, dupsOf, staged } from './queries.ts';

/** The job row under FOR UPDATE: taken last in a batch (counts, errors) and to finish the job. */
export function lock(db: Db, importId: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', importId).forUpdate().executeTakeFirst();
}

/** What a batch needs to know first, in one round trip: the job, its account's settings, its parts with rows left (in order). */
export async function plan(db: Db, importId: string) {
  const r = await sql<{
    status: ImportRow['status'];
    account_id: string;
    group_ids: string[];
    options: ImportRow['options'];
    verify_emails: boolean;
    any_suppressed: boolean;
    open: { part: number; last_row: number; end_row: number }[];
  }>`select i.status, i.account_id, i.group_ids, i.options, a.verify_emails,
      exists (select 1 from suppressions s where s.account_id = i.account_id) as any_suppressed,
      coalesce((select jsonb_agg(jsonb_build_object('part', p.part, 'last_row', p.last_row, 'end_row', p.end_row) order by p.part)
        from import_parts p where p.import_id = i.id and p.last_row < p.end_row), '[]'::jsonb) as open
    from imports i join accounts a on a.id = i.account_id where i.id = ${importId}`.execute(db);
  return r.rows[0];
}

/** Parts with rows left, in order. */
export function openParts(db: Db, importId: string) {
  return db
    .selectFrom('import_parts')
    .select(['part', 'last_row', 'end_row'])
    .where('import_id', '=', importId)
    .whereRef('last_row', '<', 'end_row')
    .orderBy('part')
    .execute();
}

/** The rows of one batch that reach the upsert: valid and not overridden by a later row. */
export async function candidates(db: Db, importId: string, from: number, to: number) {
  const r = await sql<{
    row_no: number;
    email: string;
  }>`select row_no, email from ${staged(importId, from, to, ADDRESS_ONLY)} r
    where error is null and row_no <> all(${dupsOf(importId, from, to)})
    order by row_no`.execute(db);
  return r.rows;
}

/**
 * The batch as one statement, in the caller's transaction: claim the part's row (FOR UPDATE SKIP LOCKED,
 * only while its cursor is still at `from`), upsert the subscribers (existing ones keep what the row leaves
 * empty; custom_fields merge), add the groups, write subscriber.created / subscriber.updated /
 * subscriber.added_to_group events, move the part's cursor past the batch, and add the counts and the first
 * errors (the batch's staged failures and `skipped`, merged by row into the kept `maxErrors`) to the job
 * row — all set-based, one round trip. Claiming also lets the transaction commit without waiting for its WAL
 * flush: a crash of the database may lose the last few batches, never part of one (each commits its
 * subscribers, events, counts and cursor together), so the job resumes from the cursor that survived.
 * `claimed` is false when another runner holds or moved the part (nothing was written); `advanced` is false
 * when the job is no longer processing (the caller rolls back).
 */
export async function upsertBatch(
  db: Db,
  accountId: string,
  importId: string,
  b: {
    part: number;
    from: number;
    to: number;
    skipped: ImportError[];
    groupIds: string[];
    maxErrors: number;
    ids?: { subscribers: string[]; events: string[] };
    /** false: subscribers who exist already are left alone (counted as skipped) */
    updateExisting?: boolean;
    /** written as a note on every subscriber the batch creates or updates */
    note?: string | null;
  },
) {
  const updateExisting = b.updateExisting ?? true;
  const note = b.note ?? null;
  // ids given: the new subscribers and their events take them in order; otherwise (and past their end) gen_random_uuid()
  const subscriberIds = b.ids?.subscribers ?? null;
  const eventIds = b.ids?.events ?? null;
  const r = await sql<{ claimed: boolean; advanced: boolean; created: number; updated: number; failed: number }>`
    with claim as materialized (
      -- the connection's small pending lists (db/client.ts) would merge the search indexes in every batch
      select set_config('synchronous_commit', 'off', true) as sync, set_config('gin_pending_list_limit', '4096', true)
      from import_parts
      where import_id = ${importId} and part = ${b.part} and last_row = ${b.from} for update skip locked
    ), rows as materialized (
      select * from ${staged(importId, b.from, b.to)} r where exists (select 1 from claim)
    ), batch as (
      select email, first_name, last_name, phone, time_zone, coalesce(custom_fields, '{}'::jsonb) as custom_fields,
        coalesce((${subscriberIds}::uuid[])[row_number() over ()], gen_random_uuid()) as id from rows r
      where error is null and row_no <> all(${b.skipped.map((e) => e.row)}::int[]) and row_no <> all(${dupsOf(importId, b.from, b.to)})
    ), up as (
      -- member_of gets the import's groups here, as the memberships' trigger would write them after the
      -- statement (migration 20261127_0900): the trigger then finds every row up to date and writes none again
      insert into subscribers as s (id, account_id, email, first_name, last_name, phone, time_zone, custom_fields, source, member_of)
      select id, ${accountId}::uuid, email, first_name, last_name, phone, time_zone, custom_fields, 'import', ${b.groupIds}::uuid[] from batch
      on conflict (account_id, lower(email)) do update set
        first_name = coalesce(excluded.first_name, s.first_name),
        last_name = coalesce(excluded.last_name, s.last_name),
        phone = coalesce(excluded.phone, s.phone),
        time_zone = coalesce(excluded.time_zone, s.time_zone),
        custom_fields = s.custom_fields || excluded.custom_fields,
        member_of = array(select distinct unnest(s.member_of || excluded.member_of)),
        updated_at = now()
      where ${updateExisting}::boolean
      returning s.id, s.email, s.first_name, s.last_name, s.phone, s.status, s.custom_fields, s.created_at, s.updated_at, (s.xmax = 0) as inserted
    ), grp as (
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select g.id, up.id, ${accountId}::uuid from up cross join unnest(${b.groupIds}::uuid[]) as g(id)
      on conflict do nothing
      returning group_id, subscriber_id
    ), note as (
      insert into subscriber_notes (account_id, subscriber_id, content)
      select ${accountId}::uuid, up.id, ${note}::text from up where ${note}::text is not null
      returning 1
    ), ev as (
      insert into events (id, account_id, type, subscriber_id, data)
      select coalesce((${eventIds}::uuid[])[row_number() over ()], gen_random_uuid()), ${accountId}::uuid,
        case when inserted then 'subscriber.created' else 'subscriber.updated' end, id,
        case when inserted then jsonb_build_object('subscriber', ${subscriberJson}, 'source', 'import')
             else jsonb_build_object('subscriber', ${subscriberJson}) end
      from up
      union all
      select gen_random_uuid(), ${accountId}::uuid, 'subscriber.added_to_group', grp.subscriber_id,
        jsonb_build_object('subscriber', jsonb_build_object('id', up.id, 'email', up.email), 'group', jsonb_build_object('id', g.id, 'name', g.name))
      from grp join up on up.id = grp.subscriber_id join groups g on g.id = grp.group_id
      returning 1
    ), cursor as (
      update import_parts set last_row = ${b.to} where import_id = ${importId} and part = ${b.part} and exists (select 1 from claim)
    ), counts as materialized (
      -- reads ev, so the events are written before the job row is locked below
      select (select count(*) from ev)::int as events, (select count(*) from note)::int as notes,
        (select count(*) filter (where inserted) from up)::int as created, (select count(*) filter (where not inserted) from up)::int as updated,
        (select count(*) from batch)::int - (select count(*) from up)::int as skipped,
        (select count(*) from rows where error is null and warnings is not null)::int as warned,
        (select coalesce(jsonb_agg(jsonb_build_object('row', row_no, 'email', email, 'reason', w) order by row_no), '[]'::jsonb)
           from (select row_no, email, (select string_agg(x, '; ') from jsonb_array_elements_text(warnings) x) as w
                 from rows where error is null and warnings is not null order by row_no limit ${b.maxErrors}) f) as warnings,
        (select count(*) from rows where error is not null)::int + ${b.skipped.length}::int as failed,
        (select coalesce(jsonb_agg(jsonb_build_object('row', row_no, 'email', email, 'reason', error) order by row_no), '[]'::jsonb)
           from (select row_no, email, error from rows where error is not null order by row_no limit ${b.maxErrors}) f) || ${JSON.stringify(b.skipped)}::jsonb as errors
    ), job as (
      update imports set
        processed_rows = processed_rows + ${b.to - b.from}, created_count = created_count + c.created,
        updated_count = updated_count + c.updated, failed_count = failed_count + c.failed, updated_at = now(),
        skipped_count = skipped_count + c.skipped, warning_count = warning_count + c.warned,
        warnings = case when jsonb_array_length(c.warnings) = 0 or jsonb_array_length(imports.warnings) >= ${b.maxErrors} then imports.warnings else (
          select coalesce(jsonb_agg(e order by (e->>'row')::int), '[]'::jsonb)
          from (select e from jsonb_array_elements(imports.warnings || c.warnings) e order by (e->>'row')::int limit ${b.maxErrors}) x) end,
        errors = case when jsonb_array_length(c.errors) = 0 then imports.errors else (
          select coalesce(jsonb_agg(e order by (e->>'row')::int), '[]'::jsonb)
          from (select e from jsonb_array_elements(imports.errors || c.errors) e order by (e->>'row')::int limit ${b.maxErrors}) x) end
      from counts c
      where id = ${importId} and status = 'processing' and exists (select 1 from claim)
      returning 1
    )
    select exists (select 1 from claim) as claimed, exists (select 1 from job) as advanced, c.created, c.updated, c.failed from counts c`.execute(
    db,
  );
  return r.rows[0]!;
}

// the subscriber as publicView shows it in events, timestamps in JavaScript's ISO form like every other event
// (a new row's created_at and every row's updated_at are now(): its text is computed once per statement)
const toIso = (ts: ReturnType<typeof sql.ref> | ReturnType<typeof sql>) =>
  sql`to_char(${ts} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const iso = (col: string) =>
  sql`case when ${sql.ref(col)} = now() then (select ${toIso(sql`now()`)}) else ${toIso(sql.ref(col))} end`;
const subscriberJson = sql`jsonb_build_object('id', up.id, 'email', up.email, 'first_name', up.first_name, 'last_name', up.last_name,
  'phone', up.phone, 'status', up.status, 'custom_fields', up.custom_fields, 'created_at', ${iso('up.created_at')}, 'updated_at', ${iso('up.updated_at')})`;

export function finish(db: Db, importId: string, v: { status: 'completed' | 'failed'; failure_reason?: string }) {
  return db
    .updateTable('imports')
    .set({
      status: v.status,
      failure_reason: v.failure_reason ?? null,
      finished_at: new Date(),
      updated_at: new Date(),
    })
    .where('id', '=', importId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function dropStaged(db: Db, importId: string): Promise<void> {
  await db.deleteFrom('import_chunks').where('import_id', '=', importId).execute();
  await db.deleteFrom('import_dups').where('import_id', '=', importId).execute();
  await db.deleteFrom('import_parts').where('import_id', '=', importId).execute();
}

/**
 * Merges the pending lists of the subscribers' GIN (trigram search) indexes into the indexes. An import
 * leaves up to gin_pending_list_limit (4 MB) per index there: searches scan it in full, and PGlite has no
 * autovacuum to merge it, so the next write past the limit would pay for it. The first merge also creates
 * each index's free space map, which PGlite otherwise looks for (a failed file open) on every new index
 * page: imports after it write their batches ~15 % faster there. Needs to own the indexes (as the migrations
 * do); a role that does not just leaves the merge to autovacuum.
 */
export async function flushSearchIndexes(db: Db): Promise<void> {
  await sql`select gin_clean_pending_list(i.indexrelid) from pg_index i
    join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
    where i.indrelid = 'subscribers'::regclass and a.amname = 'gin'`.execute(db);
}

/**
 * Fresh planner statistics for what an import changes: PGlite has no autovacuum, and on PostgreSQL a large
 * import would otherwise be planned with the old row counts until autovacuum comes round. ANALYZE samples
 * (30,000 rows a table), so it costs about the same at any size. Needs to own the tables, as above.
 */
export async function analyzeImported(db: Db): Promise<void> {
  await sql`analyze subscribers, subscriber_groups, events, subscriber_counts`.execute(db);
}

/** Imports left running by a process that stopped: the worker picks them up again. */
export function running(db: Db) {
  return db.selectFrom('imports').select(['id', 'account_id']).where('status', '=', 'processing').execute();
}

/** Uploads whose request died before the job started (a crash mid-upload leaves them in 'staging'). */
export async function removeAbandoned(db: Db, olderThan: Date): Promise<void> {
  await db.deleteFrom('imports').where('status', '=', 'staging').where('updated_at', '<', olderThan).execute();
}
