// SQL of the worker instances (heartbeats) and of the pg-boss jobs each one runs (job_leases). "Live" is
// judged by the database's clock, so instances on hosts whose clocks disagree still agree on who is dead.
import { sql } from 'kysely';
import type { Db, DbHandle } from '../../db/client.ts';
import type { InboundSummary } from '../../db/schema/instances.ts';

/**
 * Writes the heartbeat (registering the instance the first time). Through the handle's raw executeSql:
 * a heartbeat changes nothing a read cache holds, so it must not tick the change clock (which would empty
 * this process's read cache every few seconds).
 */
export async function beat(
  handle: Pick<DbHandle, 'executeSql'>,
  id: string,
  host: string,
  pid: number,
  /** what its inbound listener and bounce mailbox are doing (shown in Settings), null without them */
  inbound: InboundSummary | null = null,
): Promise<void> {
  await handle.executeSql(
    `insert into worker_instances (id, host, pid, inbound) values ($1::uuid, $2, $3, $4::jsonb)
     on conflict (id) do update set last_seen = now(), inbound = excluded.inbound`,
    [id, host, pid, inbound && JSON.stringify(inbound)],
  );
}

/** Removes the instance (a graceful stop, after it handed its work back) and rows dead for a day. */
export async function retire(db: Db, id: string): Promise<void> {
  await sql`delete from worker_instances where id = ${id}::uuid or last_seen < now() - interval '1 day'`.execute(db);
}

/** Every instance but `id`: on PGlite one process owns the data dir, so at its start the others are dead. */
export async function forgetOthers(db: Db, id: string): Promise<void> {
  await sql`delete from worker_instances where id <> ${id}::uuid`.execute(db);
}

export type LiveInstance = { id: string; host: string; pid: number; inbound: InboundSummary | null };

export async function live(db: Db, timeoutMs: number): Promise<LiveInstance[]> {
  const { rows } = await sql<LiveInstance>`
    select id, host, pid, inbound from worker_instances
     where last_seen > now() - ${timeoutMs} * interval '1 millisecond' order by started_at`.execute(db);
  return rows;
}

export async function holdJob(db: Db, jobId: string, queue: string, instanceId: string): Promise<void> {
  await sql`insert into job_leases (job_id, queue, instance_id) values (${jobId}::uuid, ${queue}, ${instanceId}::uuid)
    on conflict (job_id) do update set instance_id = excluded.instance_id, queue = excluded.queue, started_at = now()`.execute(
    db,
  );
}

export async function holdsJob(db: Db, jobId: string, instanceId: string): Promise<boolean> {
  const { rows } =
    await sql`select 1 from job_leases where job_id = ${jobId}::uuid and instance_id = ${instanceId}::uuid`.execute(db);
  return rows.length > 0;
}

/** Drops the lease; false when it was no longer this instance's (taken over meanwhile). */
export async function dropJob(db: Db, jobId: string, instanceId: string): Promise<boolean> {
  const r =
    await sql`delete from job_leases where job_id = ${jobId}::uuid and instance_id = ${instanceId}::uuid`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * Takes the leases of jobs whose instance is not live (deleted as they are read: of several supervisors
 * running this at once, each lease goes to one), to hand the jobs back to the queue.
 */
export async function takeOrphanedJobs(db: Db, timeoutMs: number): Promise<{ job_id: string; queue: string }[]> {
  const { rows } = await sql<{ job_id: string; queue: string }>`
    delete from job_leases
     where instance_id not in (
       select id from worker_instances where last_seen > now() - ${timeoutMs} * interval '1 millisecond')
    returning job_id, queue`.execute(db);
  return rows;
}

/** The leases of one instance (a graceful stop hands its own jobs back). */
export async function takeJobsOf(db: Db, instanceId: string): Promise<{ job_id: string; queue: string }[]> {
  const { rows } = await sql<{ job_id: string; queue: string }>`
    delete from job_leases where instance_id = ${instanceId}::uuid returning job_id, queue`.execute(db);
  return rows;
}

/** The tables whose rows a worker leases with locked_until and names its instance in locked_by. */
export type LeasedTable = 'automation_runs' | 'webhook_deliveries';

/** Ends the leases held by worker instances that are not live (heartbeat older than `timeoutMs`). */
export async function releaseOrphanedLeases(db: Db, table: LeasedTable, timeoutMs: number): Promise<number> {
  const r = await sql`
    update ${sql.table(table)} set locked_until = null, locked_by = null
     where locked_by is not null
       and locked_by not in (
         select id from worker_instances where last_seen > now() - ${timeoutMs} * interval '1 millisecond')`.execute(
    db,
  );
  return Number(r.numAffectedRows ?? 0);
}

/** Ends the leases one instance holds (its graceful stop). */
export async function releaseLeasesOf(db: Db, table: LeasedTable, instanceId: string): Promise<number> {
  const r = await db
    .updateTable(table)
    .set({ locked_until: null, locked_by: null })
    .where('locked_by', '=', instanceId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
