// Starts scheduled campaigns when they are due. Every SCHEDULER_INTERVAL_MS one process
// claims due campaigns with FOR UPDATE SKIP LOCKED and freezes each one's audience in its own transaction;
// the state lives in the campaigns table, so a restart or a second instance simply picks up what is due.
import * as campaigns from '../domain/campaigns/campaigns.ts';
import type { StopFn, WorkerContext } from './index.ts';
import { wake as wakeSenders } from './send.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const started = await campaigns.startDue(ctx.db, ctx.config.secret);
      if (started.length > 0) {
        ctx.log.info({ campaigns: started }, 'scheduler: started scheduled campaigns');
        wakeSenders();
      }
    } catch (err) {
      if (!stopped) ctx.log.error({ err }, 'scheduler: round failed');
    }
  };
  const loop = () => {
    if (stopped) return;
    running = tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, Math.max(50, ctx.config.SCHEDULER_INTERVAL_MS));
    });
  };
  loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
