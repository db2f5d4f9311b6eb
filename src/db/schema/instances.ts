// Kysely types of the worker instances and the jobs they hold (migration 20261126_1900_worker_instances.sql).
import type { Generated } from 'kysely';
import type { Timestamp } from './core.ts';

/** One instance that runs workers, and when it last wrote its heartbeat. */
export interface WorkerInstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: Generated<Timestamp>;
  last_seen: Generated<Timestamp>;
}

/** A pg-boss job a handler is running now, and the instance that runs it. */
export interface JobLeasesTable {
  job_id: string;
  queue: string;
  instance_id: string;
  started_at: Generated<Timestamp>;
}

export interface InstancesTables {
  worker_instances: WorkerInstancesTable;
  job_leases: JobLeasesTable;
}
