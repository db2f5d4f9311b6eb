// Background work for webhooks: the fan-out loop turns new events into delivery rows (one reader, cursor
// in event_cursors), the delivery loop leases due deliveries and posts them, WEBHOOK_CONCURRENCY at a
// time. Both poll every WORKER_POLL_MS; fan-out wakes the delivery loop when it queued something.
import { EventFeed, webhookWanted } from '../domain/events/feed.ts';
import * as delivery from '../domain/webhooks/delivery.ts';
import type { StopFn, WorkerContext } from './index.ts';
import { startLoop } from './pollLoop.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { db, config, log } = ctx;
  // fan-out works on the seq range in SQL; events of accounts without a webhook for them are stepped over
  const feed = new EventFeed('webhooks', 500, { seqsOnly: true, wanted: webhookWanted });
  // an attempt takes at most the timeout; the lease adds a margin for a slow database write after it
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + 60_000;
  const concurrency = Math.max(1, config.WEBHOOK_CONCURRENCY);

  const deliver = startLoop('webhook delivery', config.WORKER_POLL_MS, log, async (signal) => {
    const due = await delivery.claimDue(db, concurrency, leaseMs);
    await Promise.all(
      due.map(async (d) => {
        const result = await delivery.attempt(config, d, signal);
        // stopping mid-attempt: leave the lease to lapse, the next start tries again (at-least-once)
        if (signal.aborted) return;
        await delivery.recordAttempt(db, config, d, result);
      }),
    );
    return due.length > 0;
  });

  const fanOut = startLoop('webhook fan-out', config.WORKER_POLL_MS, log, async () => {
    let queued = 0;
    const handled = await feed.consume(db, async (trx, batch) => {
      queued = await delivery.fanOut(trx, batch);
    });
    if (queued > 0) deliver.wake();
    return handled > 0;
  });

  return async () => {
    await fanOut.stop();
    await deliver.stop();
  };
}
