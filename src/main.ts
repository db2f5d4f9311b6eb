// Starts Mailgrove: config → database → migrations → job queue → mail transport → HTTP app → workers →
// the inbound mail listener and bounce mailbox (when configured).
// The one mail transport (one SMTP pool) serves the app and every worker, and closes after them.
import type { FastifyInstance } from 'fastify';
import { startProblem, type Config } from './config.ts';
import { openDb, type DbHandle } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { buildApp } from './http/app.ts';
import type { StopFn } from './jobs/context.ts';
import * as inbound from './jobs/inbound.ts';
import { startWorkers } from './jobs/index.ts';
import { Queue } from './jobs/queue.ts';
import { createTransport } from './mail/transport.ts';
import * as relays from './domain/sending/relays.ts';
import { resolveSecret } from './secret.ts';

export interface Running {
  app: FastifyInstance;
  handle: DbHandle;
  queue: Queue;
  url: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** an already open database (tests); otherwise DATABASE_URL or PGlite in MAILGROVE_DATA_DIR */
  handle?: DbHandle;
  /** pg-boss schema (tests on PostgreSQL isolate themselves with one per server) */
  queueSchema?: string;
  listen?: boolean;
  /** where the log lines go instead of stdout (tests read them) */
  logStream?: { write(line: string): void };
}

export async function start(config: Config, opts: StartOptions = {}): Promise<Running> {
  const problem = startProblem(config);
  if (problem) throw new Error(problem);
  const handle =
    opts.handle ??
    (await openDb({
      url: config.DATABASE_URL,
      dataDir: config.MAILGROVE_DATA_DIR,
      poolSize: config.DATABASE_POOL_SIZE,
      workerPoolSize: config.DATABASE_WORKER_POOL_SIZE,
    }));
  await migrate(handle.db);
  config.secret = await resolveSecret(handle.db, config.MAILGROVE_SECRET);
  const queue = new Queue(handle, Math.max(0.5, config.WORKER_POLL_MS / 1000), opts.queueSchema);
  await queue.start();
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL) : undefined;
  // an account's relay is read from the database (its URL sealed under the instance secret)
  const transport = createTransport(config, handle.db, (accountId, relayId) =>
    relays.relayUrl(handle.db, config, accountId, relayId),
  );
  const app = await buildApp(config, {
    handle,
    queue,
    transport,
    redis,
    logStream: opts.logStream,
    healthOnly: config.MAILGROVE_ROLE === 'worker',
  });
  queue.onError = (err) => app.log.error({ err }, 'job queue error');
  transport.onError = (err) => app.log.error({ err }, 'mail transport error');
  let url = '';
  if (opts.listen !== false) {
    url = await app.listen({ host: config.HOST, port: config.PORT });
    // PORT=0 picks a free port: links in mail must carry the real one
    if (!config.PUBLIC_URL && config.PORT === 0) config.publicUrl = url.replace(/\/+$/, '');
    app.log.info(
      `Mailgrove ${config.version} on ${url} (${handle.kind === 'pglite' ? `PGlite in ${config.MAILGROVE_DATA_DIR}` : 'PostgreSQL'})`,
    );
  }
  const stopWorkers: StopFn =
    config.WORKERS && config.MAILGROVE_ROLE !== 'api'
      ? await startWorkers({ db: handle.workerDb, handle, config, queue, transport, log: app.log })
      : async () => {};
  // mail that comes home (bounces, complaints, mailto unsubscribes): any instance may receive it
  const stopInbound = await inbound.start({ db: handle.db, config, log: app.log });
  let stopping: Promise<void> | undefined;
  return {
    app,
    handle,
    queue,
    url,
    stop() {
      stopping ??= (async () => {
        await stopInbound();
        await app.close();
        await stopWorkers();
        await transport.close();
        await queue.stop();
        (redis as { quit?: () => Promise<unknown> } | undefined)?.quit?.().catch(() => {});
        if (!opts.handle) await handle.close();
      })();
      return stopping;
    },
  };
}

async function connectRedis(url: string): Promise<unknown> {
  const { Redis } = await import('ioredis');
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
}
