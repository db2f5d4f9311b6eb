// Background work for automations: the trigger loop reads the events log (its own cursor) and starts
// runs, and once per account-local day scans date_anniversary fields; the run loop leases due runs and
// moves them through their steps, SEND_CONCURRENCY at a time. Both poll every WORKER_POLL_MS; starting a
// run wakes the run loop so a welcome email does not wait for the next poll.
import * as runs from '../domain/automations/runs.ts';
import * as triggers from '../domain/automations/triggers.ts';
import { automationWanted, EventFeed } from '../domain/events/feed.ts';
import { createTransport } from '../mail/transport.ts';
import type { StopFn, WorkerContext } from './index.ts';
import { startLoop } from './pollLoop.ts';

// a turn sends at most one email per step; five minutes covers a slow mail server with room to spare
const LEASE_MS = 5 * 60_000;

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { db, config, log } = ctx;
  const transport = createTransport(config, db);
  // triggers match on the seq range in SQL; events of accounts without an enabled automation are stepped over
  const feed = new EventFeed('automations', 500, { seqsOnly: true, wanted: automationWanted });
  const concurrency = Math.max(1, config.SEND_CONCURRENCY);

  const runLoop = startLoop('automation runs', config.WORKER_POLL_MS, log, async () => {
    const due = await runs.claimDue(db, concurrency, LEASE_MS);
    await Promise.all(due.map((id) => runs.advance({ db, config, transport }, id)));
    return due.length > 0;
  });

  const triggerLoop = startLoop('automation triggers', config.WORKER_POLL_MS, log, async () => {
    let started = 0;
    const handled = await feed.consume(db, async (trx, batch) => {
      started = await triggers.startFromEvents(trx, batch);
    });
    started += await triggers.scanAnniversaries(db);
    if (started > 0) runLoop.wake();
    return handled > 0;
  });

  return async () => {
    await triggerLoop.stop();
    await runLoop.stop();
    await transport.close();
  };
}
