// Background work for webhooks: the fan-out loop turns new events into delivery rows, the delivery loop
// posts the deliveries that are due. Both poll every WORKER_POLL_MS; fan-out wakes the delivery loop when
// it queued something.
import * as delivery from '../domain/webhooks/delivery.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { db, config, log } = ctx;
  const feed = delivery.eventFeed();

  const deliver = startLoop(
    'webhook delivery',
    config.WORKER_POLL_MS,
    log,
    async (signal) => (await delivery.deliverDue(db, config, signal, ctx.queue.instanceId)) > 0,
  );

  const fanOut = startLoop('webhook fan-out', config.WORKER_POLL_MS, log, async () => {
    const { handled, queued } = await delivery.fanOutNext(db, feed);
    if (queued > 0) deliver.wake();
    return handled > 0;
  });

  return async () => {
    await fanOut.stop();
    await deliver.stop();
  };
}
