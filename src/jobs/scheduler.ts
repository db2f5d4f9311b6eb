// Starts scheduled campaigns when they are due. Every SCHEDULER_INTERVAL_MS one process
// claims due campaigns with FOR UPDATE SKIP LOCKED and freezes each one's audience in its own transaction;
// the state lives in the campaigns table, so a restart or a second instance simply picks up what is due.
import * as idempotencyKeys from '../domain/accounts/idempotencyKeys.ts';
import * as campaigns from '../domain/campaigns/campaigns.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';
import { wake as wakeSenders } from './send.ts';

// housekeeping that needs no hurry: Idempotency-Keys past their 24 hours
const HOUSEKEEPING_MS = 3_600_000;

export async function register(ctx: WorkerContext): Promise<StopFn> {
  let housekept = 0;
  const loop = startLoop('scheduler', ctx.config.SCHEDULER_INTERVAL_MS, ctx.log, async () => {
    const started = await campaigns.startDue(ctx.db, ctx.config.secret);
    if (started.length > 0) {
      ctx.log.info({ campaigns: started }, 'scheduler: started scheduled campaigns');
      wakeSenders();
    }
    if (Date.now() - housekept > HOUSEKEEPING_MS) {
      housekept = Date.now();
      await idempotencyKeys.expire(ctx.db);
    }
    // one round per interval, however many were due: the next round takes the rest
    return false;
  });
  return () => loop.stop();
}
