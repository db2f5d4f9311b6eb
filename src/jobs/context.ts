// What every worker module is given, and what it hands back: in a file of its own, so the modules need not
// import the registry (index.ts) that imports them.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db, DbHandle } from '../db/client.ts';
import type { Pacing } from '../domain/delivery/pacing.ts';
import type { MailTransport } from '../mail/transport.ts';
import type { Queue } from './queue.ts';

export interface WorkerContext {
  db: Db;
  handle: DbHandle;
  config: Config;
  queue: Queue;
  /** the process's one mail transport (its owner closes it, after the workers stop) */
  transport: MailTransport;
  log: FastifyBaseLogger;
  /** the process's one pace of bulk mail, shared by campaign lanes and automation runs (startWorkers makes it) */
  pacing: Pacing;
}

/** A worker module starts its loops in register and returns how to stop them. */
export type StopFn = () => Promise<void>;
