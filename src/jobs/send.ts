// Campaign send workers: each process runs one Sender (domain/delivery/sender.ts); this registrar starts
// its lanes (one poll loop each, calling `round`) and its heartbeat. The scheduler wakes the lanes when it
// starts a campaign.
import { LANES, Sender } from '../domain/delivery/sender.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';

let wakeAll: () => void = () => {};
/** Cuts the idle wait short (the scheduler calls it after starting campaigns). */
export function wake(): void {
  wakeAll();
}

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const { config, log } = ctx;
  const sender = new Sender(ctx, ctx.pacing);
  await sender.start();
  const beat = setInterval(() => void sender.beat(), Math.max(100, Math.floor(config.SEND_LEASE_MS / 3)));
  beat.unref();
  const lanes = Array.from({ length: LANES }, () =>
    startLoop('send', config.WORKER_POLL_MS, log, () => sender.round()),
  );
  wakeAll = () => lanes.forEach((lane) => lane.wake());
  return async () => {
    clearInterval(beat);
    sender.halt();
    await Promise.all(lanes.map((lane) => lane.stop()));
    await sender.drain();
  };
}
