// Starts every background worker of this process.
import type { StopFn, WorkerContext } from './context.ts';
import * as imports from './import.ts';
import * as send from './send.ts';
import * as webhooks from './webhooks.ts';
import * as automations from './automations.ts';
import * as scheduler from './scheduler.ts';

export async function startWorkers(ctx: WorkerContext): Promise<StopFn> {
  const stops: (StopFn | void)[] = [];
  for (const mod of [imports, send, webhooks, automations, scheduler]) stops.push(await mod.register(ctx));
  return async () => {
    for (const stop of stops.reverse()) if (stop) await stop();
  };
}
