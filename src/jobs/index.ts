// Starts every background worker of this process.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db, DbHandle } from '../db/client.ts';
import type { Queue } from './queue.ts';
import * as imports from './import.ts';
import * as send from './send.ts';
import * as webhooks from './webhooks.ts';
import * as automations from './automations.ts';
import * as scheduler from './scheduler.ts';

export interface WorkerContext {
  db: Db;
  handle: DbHandle;
  config: Config;
  queue: Queue;
  log: FastifyBaseLogger;
}

/** A worker module starts its loops in register and returns how to stop them. */
export type StopFn = () => Promise<void>;

export async function startWorkers(ctx: WorkerContext): Promise<StopFn> {
  const stops: (StopFn | void)[] = [];
  for (const mod of [imports, send, webhooks, automations, scheduler]) stops.push(await mod.register(ctx));
  return async () => {
    for (const stop of stops.reverse()) if (stop) await stop();
  };
}
