// Durable background jobs through pg-boss, in the same database as the data (PostgreSQL or PGlite).
// A job's payload holds ids only; its state lives in rows, so a retry or a restart reads the row and carries on.
import PgBoss from 'pg-boss';
import type { DbHandle } from '../db/client.ts';

export interface SendOptions {
  /** run no earlier than this (a Date, or seconds from now) */
  startAfter?: Date | number;
  /** at most one queued job with this key per queue */
  singletonKey?: string;
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
}

export interface WorkOptions {
  batchSize?: number;
  /** how many handlers of this queue run at once in this process */
  concurrency?: number;
}

export type JobHandler<T> = (data: T, job: { id: string; retryCount: number }) => Promise<void>;

export class Queue {
  private readonly boss: PgBoss;
  private readonly created = new Map<string, Promise<void>>();
  private started = false;

  constructor(
    handle: DbHandle,
    private readonly pollSeconds: number,
    /** the database schema of pg-boss's tables (the metrics endpoint reads queue depth there) */
    readonly schema = 'pgboss',
  ) {
    this.boss = new PgBoss({
      db: { executeSql: (text: string, values?: unknown[]) => handle.executeSql(text, values) },
      schema,
      supervise: true,
      // pg-boss keeps finished jobs a week by default; ours are bookkeeping only
      deleteAfterDays: 2,
    } as PgBoss.ConstructorOptions);
    this.boss.on('error', (err) => this.onError(err));
  }

  onError: (err: Error) => void = () => {};

  /** started and not stopping: jobs sent now will be worked */
  get running(): boolean {
    return this.started;
  }

  async start(): Promise<void> {
    await this.boss.start();
    this.started = true;
  }

  private ensureQueue(name: string): Promise<void> {
    let p = this.created.get(name);
    if (!p) {
      p = this.boss.createQueue(name).catch((err) => {
        this.created.delete(name);
        throw err;
      });
      this.created.set(name, p);
    }
    return p;
  }

  async send<T extends object>(name: string, data: T, opts: SendOptions = {}): Promise<string | null> {
    await this.ensureQueue(name);
    return this.boss.send(name, data, {
      startAfter: opts.startAfter,
      singletonKey: opts.singletonKey,
      retryLimit: opts.retryLimit ?? 5,
      retryDelay: opts.retryDelay ?? 2,
      retryBackoff: opts.retryBackoff ?? true,
    } as PgBoss.SendOptions);
  }

  async work<T extends object>(name: string, handler: JobHandler<T>, opts: WorkOptions = {}): Promise<void> {
    await this.ensureQueue(name);
    const workers = Math.max(1, opts.concurrency ?? 1);
    for (let i = 0; i < workers; i++) {
      await this.boss.work<T>(
        name,
        { pollingIntervalSeconds: this.pollSeconds, batchSize: opts.batchSize ?? 1 },
        async (jobs) => {
          for (const job of jobs) await handler(job.data, { id: job.id, retryCount: (job as any).retryCount ?? 0 });
        },
      );
    }
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, wait: true, timeout: 5000 });
  }
}
