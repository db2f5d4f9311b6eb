// The worker instances on one database and the pg-boss jobs each one runs. Every instance that runs
// workers writes a heartbeat every INSTANCE_HEARTBEAT_MS; one whose heartbeat is older than
// INSTANCE_TIMEOUT_MS is dead, whatever the reason (SIGKILL, a lost host, a partition). A pg-boss job
// runs under a lease naming its instance (job_leases), written when its handler starts and dropped when it
// ends, so a dead instance's jobs can be found and handed back to the queue at once instead of waiting
// for pg-boss's expiry (15 minutes). Taking a lease over deletes it, so of several supervisors each job
// goes to one. The work itself must tolerate a second runner (a presumed-dead instance may only have
// paused): imports do, as their batches claim a part at its cursor (imports/batch.ts).

export interface JobLease {
  job_id: string;
  queue: string;
}

export {
  beat,
  dropJob,
  forgetOthers,
  holdJob,
  holdsJob,
  live,
  retire,
  takeJobsOf,
  takeOrphanedJobs,
} from './queries.ts';
