// Kysely types of the worker instances and the jobs they hold (migration 20261126_1900_worker_instances.sql).
import type { Generated } from 'kysely';
import type { JsonColumn, Timestamp } from './core.ts';

/** What an instance tells the others of its inbound listener and bounce mailbox, with its heartbeat. */
export interface InboundSummary {
  listener: {
    listening: boolean;
    address: string | null;
    tls: boolean;
    error: string | null;
    last_received_at: Date | string | null;
  } | null;
  mailbox: {
    mailbox: string;
    last_poll_at: Date | string | null;
    last_error: string | null;
    last_received_at: Date | string | null;
  } | null;
}

/** One instance that runs workers, and when it last wrote its heartbeat. */
export interface WorkerInstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: Generated<Timestamp>;
  last_seen: Generated<Timestamp>;
  /** its inbound listener and bounce mailbox, as of its last heartbeat (migration 20261207_0300) */
  inbound: JsonColumn<InboundSummary> | null;
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
