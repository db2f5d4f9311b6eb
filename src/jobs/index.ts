// Starts every background worker of this process, and stops them in the reverse order.
import { Pacing } from '../domain/delivery/pacing.ts';
import type { MxResolver } from '../domain/delivery/providers.ts';
import type { StopFn, WorkerContext } from './context.ts';
import * as imports from './import.ts';
import * as send from './send.ts';
import * as webhooks from './webhooks.ts';
import * as automations from './automations.ts';
import * as scheduler from './scheduler.ts';
import * as supervisor from './supervisor.ts';

let mxResolver: MxResolver | undefined;
/** Tests: the MX lookup the next started workers use. */
export function useMxResolver(resolve: MxResolver | undefined): void {
  mxResolver = resolve;
}

export async function startWorkers(base: Omit<WorkerContext, 'pacing'>): Promise<StopFn> {
  const ctx: WorkerContext = { ...base, pacing: new Pacing(base, mxResolver) };
  const stops: (StopFn | void)[] = [];
  // the supervisor first: the instance is on record before it leases anything, and it stops last
  for (const mod of [supervisor, imports, send, webhooks, automations, scheduler]) stops.push(await mod.register(ctx));
  return async () => {
    for (const stop of stops.reverse()) if (stop) await stop();
  };
}
