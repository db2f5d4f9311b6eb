// Background work for automations: the trigger loop starts runs (from the events log, and once per
// account-local day from date_anniversary fields); the run loop moves due runs through their steps.
// Both poll every WORKER_POLL_MS; starting a run wakes the run loop so a welcome email does not wait for
// the next poll.
import * as runs from '../domain/automations/runs.ts';
import * as triggers from '../domain/automations/triggers.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { db, config, log, transport, pacing } = ctx;
  const feed = triggers.eventFeed();

  const runLoop = startLoop(
    'automation runs',
    config.WORKER_POLL_MS,
    log,
    async () => (await runs.advanceDue({ db, config, transport, pacing, instanceId: ctx.queue.instanceId })) > 0,
  );

  const triggerLoop = startLoop('automation triggers', config.WORKER_POLL_MS, log, async () => {
    const { handled, started } = await triggers.scan(db, feed);
    if (started > 0) runLoop.wake();
    return handled > 0;
  });

  return async () => {
    await triggerLoop.stop();
    await runLoop.stop();
  };
}
