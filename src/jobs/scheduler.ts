// Starts scheduled campaigns when they are due. Every SCHEDULER_INTERVAL_MS one process
// claims due campaigns with FOR UPDATE SKIP LOCKED and freezes each one's audience in its own transaction;
// the state lives in the campaigns table, so a restart or a second instance simply picks up what is due.
// The same loop decides A/B test winners whose wait is over (abTests.decideDue).
import * as idempotencyKeys from '../domain/accounts/idempotencyKeys.ts';
import * as abTests from '../domain/campaigns/abTests.ts';
import * as campaigns from '../domain/campaigns/campaigns.ts';
import * as sendingDomains from '../domain/sending/domains.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop } from './pollLoop.ts';
import { wake as wakeSenders } from './send.ts';

// housekeeping that needs no hurry: Idempotency-Keys past their 24 hours
const HOUSEKEEPING_MS = 3_600_000;
// how often the sending domains' daily re-check looks for domains due (a loop of its own: DNS lookups that
// time out must not hold scheduled campaigns back)
const DOMAIN_RECHECK_POLL_MS = 600_000;
const DOMAIN_RECHECK_BATCH = 20;

export async function register(ctx: WorkerContext): Promise<StopFn> {
  let housekept = 0;
  const loop = startLoop('scheduler', ctx.config.SCHEDULER_INTERVAL_MS, ctx.log, async () => {
    const started = await campaigns.startDue(ctx.db, ctx.config);
    if (started.length > 0) {
      ctx.log.info({ campaigns: started }, 'scheduler: started scheduled campaigns');
      wakeSenders();
    }
    // A/B tests whose wait is over: the winner goes to the rest (decided once, under the campaign's lock)
    const decided = await abTests.decideDue(ctx.db);
    if (decided.length > 0) {
      ctx.log.info({ campaigns: decided }, 'scheduler: A/B test winners decided');
      wakeSenders();
    }
    if (Date.now() - housekept > HOUSEKEEPING_MS) {
      housekept = Date.now();
      await idempotencyKeys.expire(ctx.db);
    }
    // one round per interval, however many were due: the next round takes the rest
    return false;
  });
  const recheck = startLoop('sending-domain-recheck', DOMAIN_RECHECK_POLL_MS, ctx.log, async () => {
    const checked = await sendingDomains.recheckDue(ctx.db, ctx.config, DOMAIN_RECHECK_BATCH);
    return checked === DOMAIN_RECHECK_BATCH;
  });
  return async () => {
    await recheck.stop();
    await loop.stop();
  };
}
