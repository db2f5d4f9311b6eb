// Starts scheduled campaigns when they are due. Every SCHEDULER_INTERVAL_MS one process
// claims due campaigns with FOR UPDATE SKIP LOCKED and freezes each one's audience in its own transaction;
// the state lives in the campaigns table, so a restart or a second instance simply picks up what is due.
import * as campaigns from '../domain/campaigns/campaigns.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';
import { wake as wakeSenders } from './send.ts';

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const loop = startLoop('scheduler', ctx.config.SCHEDULER_INTERVAL_MS, ctx.log, async () => {
    const started = await campaigns.startDue(ctx.db, ctx.config.secret);
    if (started.length > 0) {
      ctx.log.info({ campaigns: started }, 'scheduler: started scheduled campaigns');
      wakeSenders();
    }
    // one round per interval, however many were due: the next round takes the rest
    return false;
  });
  return () => loop.stop();
}
