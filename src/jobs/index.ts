// Starts every background worker of this process, and stops them in the reverse order.
import type { StopFn, WorkerContext } from './context.ts';
import * as imports from './import.ts';
import * as send from './send.ts';
import * as webhooks from './webhooks.ts';
import * as automations from './automations.ts';
import * as scheduler from './scheduler.ts';
import * as supervisor from './supervisor.ts';

export async function startWorkers(ctx: WorkerContext): Promise<StopFn> {
  const stops: (StopFn | void)[] = [];
  // the supervisor first: the instance is on record before it leases anything, and it stops last
  for (const mod of [supervisor, imports, send, webhooks, automations, scheduler]) stops.push(await mod.register(ctx));
  return async () => {
    for (const stop of stops.reverse()) if (stop) await stop();
  };
}
