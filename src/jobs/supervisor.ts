// Keeps this instance among the live ones and hands on the work of the dead. Every INSTANCE_HEARTBEAT_MS
// it writes its heartbeat, then takes over what instances silent for INSTANCE_TIMEOUT_MS still hold: their
// pg-boss jobs go back to the queue to be fetched at once (an import resumes from its last batch), their
// automation runs and webhook deliveries lose their leases and are claimed again by whoever polls first.
// Every instance runs it, so there is no leader to lose; each lease goes to one of them. It registers
// first and stops last: on a graceful stop it hands back whatever this instance still holds, then leaves.
import { hostname } from 'node:os';
import * as runs from '../domain/automations/runs.ts';
import * as instances from '../domain/instances/instances.ts';
import * as delivery from '../domain/webhooks/delivery.ts';
import { inboundSummary } from '../mail/inbound/status.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';
import type { Queue } from './queue.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { db, config, log, queue, handle } = ctx;
  const me = queue.instanceId;
  const host = hostname();
  await instances.beat(handle, me, host, process.pid);
  // PGlite: one process per data dir (the lock file), so any other instance on record is a dead one
  if (handle.kind === 'pglite') await instances.forgetOthers(db, me);

  const round = async () => {
    // with it, what this process's inbound listener and bounce mailbox are doing, for Settings
    await instances.beat(handle, me, host, process.pid, inboundSummary());
    const timeout = config.INSTANCE_TIMEOUT_MS;
    const jobs = await handBack(queue, await instances.takeOrphanedJobs(db, timeout));
    const runCount = await runs.releaseOrphans(db, timeout);
    const deliveryCount = await delivery.releaseOrphans(db, timeout);
    if (jobs + runCount + deliveryCount > 0)
      log.warn(
        `took over from a worker instance silent for ${timeout} ms: ${jobs} jobs, ${runCount} automation runs, ${deliveryCount} webhook deliveries`,
      );
    return false;
  };
  await round();
  const loop = startLoop('supervisor', config.INSTANCE_HEARTBEAT_MS, log, round);

  return async () => {
    await loop.stop();
    // the other workers have stopped (they registered after us): what is still ours goes back at once
    await handBack(queue, await instances.takeJobsOf(db, me));
    await runs.releaseHeldBy(db, me);
    await delivery.releaseHeldBy(db, me);
    await instances.retire(db, me);
  };
}

/** Puts the jobs of taken leases back in their queues; how many. */
async function handBack(queue: Queue, leases: instances.JobLease[]): Promise<number> {
  const byQueue = new Map<string, string[]>();
  for (const l of leases) byQueue.set(l.queue, [...(byQueue.get(l.queue) ?? []), l.job_id]);
  for (const [name, ids] of byQueue) await queue.release(name, ids);
  return leases.length;
}
