// Durable background jobs through pg-boss, in the same database as the data (PostgreSQL or PGlite).
// A job's payload holds ids only; its state lives in rows, so a retry or a restart reads the row and carries on.
//
// Jobs are fetched by our own loops rather than boss.work, for three reasons: each running job holds a
// lease naming this instance (domain/instances), so when the instance dies the others hand the job back
// at once (src/jobs/supervisor.ts) instead of after pg-boss's expiry; a handler that is stopping can hand
// its job back for another instance to take at once (JobReleased) instead of failing it into a retry with
// backoff; and a long job is not failed by pg-boss's own handler timeout while it still runs.
import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { DbHandle } from '../db/client.ts';
import * as instances from '../domain/instances/instances.ts';
import { startLoop, type LoopLog, type PollLoop } from './pollLoop.ts';

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

/**
 * Thrown by a handler that stops before its job is done (the instance is shutting down): the job goes
 * back to the queue as it is, for any instance to take at once, instead of failing into a retry.
 */
export class JobReleased extends Error {}

export class Queue {
  private readonly boss: PgBoss;
  private readonly created = new Map<string, Promise<void>>();
  /** this process's loops per queue: stopped with the queue, and woken by a job sent here */
  private readonly loopsOf = new Map<string, Set<PollLoop>>();
  private started = false;

  constructor(
    private readonly handle: DbHandle,
    private readonly pollSeconds: number,
    /** the database schema of pg-boss's tables (the metrics endpoint reads queue depth there) */
    readonly schema = 'pgboss',
    /** the worker instance whose leases the jobs worked here hold (src/jobs/supervisor.ts beats for it) */
    readonly instanceId: string = randomUUID(),
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
    const id = await this.boss.send(name, data, {
      startAfter: opts.startAfter,
      singletonKey: opts.singletonKey,
      retryLimit: opts.retryLimit ?? 5,
      retryDelay: opts.retryDelay ?? 2,
      retryBackoff: opts.retryBackoff ?? true,
    } as PgBoss.SendOptions);
    // an import started through this instance begins now, not after up to WORKER_POLL_MS (a second by default)
    if (id && opts.startAfter === undefined) for (const loop of this.loopsOf.get(name) ?? []) loop.wake();
    return id;
  }

  /**
   * Works the queue with `concurrency` loops, each fetching `batchSize` jobs when idle every poll
   * interval. Each job is leased to this instance while its handler runs; then completed, failed into
   * pg-boss's retry (with backoff), or, on JobReleased, handed back at once. A job whose lease another
   * instance took over meanwhile (this one was presumed dead) is left to it. Returns how to stop the loops:
   * the stop waits for the handlers in progress.
   */
  async work<T extends object>(
    name: string,
    handler: JobHandler<T>,
    opts: WorkOptions = {},
  ): Promise<() => Promise<void>> {
    await this.ensureQueue(name);
    const log: LoopLog = {
      error: (obj) => this.onError(obj.err instanceof Error ? obj.err : new Error(String(obj.err))),
    };
    const ofQueue = this.loopsOf.get(name) ?? new Set();
    this.loopsOf.set(name, ofQueue);
    const mine: PollLoop[] = [];
    for (let i = 0; i < Math.max(1, opts.concurrency ?? 1); i++) {
      const loop = startLoop(`queue ${name}`, this.pollSeconds * 1000, log, async () => {
        if (!this.started) return false;
        const jobs = await this.boss.fetch<T>(name, { batchSize: opts.batchSize ?? 1, includeMetadata: true });
        for (const job of jobs) await instances.holdJob(this.handle.db, job.id, name, this.instanceId);
        let handedBack = false;
        for (const job of jobs) if ((await this.run(name, job, handler)) === 'release') handedBack = true;
        // PGlite answers through microtasks only: a turn of the event loop lets requests in between jobs
        await new Promise((resolve) => setImmediate(resolve));
        // a job handed back means this worker is stopping: fetching it straight back would only spin
        return jobs.length > 0 && !handedBack;
      });
      mine.push(loop);
      ofQueue.add(loop);
    }
    return async () => {
      for (const loop of mine) ofQueue.delete(loop);
      await Promise.all(mine.map((loop) => loop.stop()));
    };
  }

  private async run<T extends object>(
    name: string,
    job: PgBoss.JobWithMetadata<T>,
    handler: JobHandler<T>,
  ): Promise<'complete' | 'fail' | 'release' | 'taken over'> {
    let outcome: 'complete' | 'fail' | 'release' = 'complete';
    let error: Error | undefined;
    try {
      await handler(job.data, { id: job.id, retryCount: job.retryCount ?? 0 });
    } catch (err) {
      error = err instanceof Error ? err : new Error(String(err));
      outcome = err instanceof JobReleased ? 'release' : 'fail';
    }
    const db = this.handle.db;
    // taken over while we ran (our heartbeat went stale): the job is another instance's now
    if (!(await instances.holdsJob(db, job.id, this.instanceId))) return 'taken over';
    if (outcome === 'complete') await this.boss.complete(name, job.id);
    else if (outcome === 'fail') await this.boss.fail(name, job.id, { message: error!.message });
    else await this.release(name, [job.id]);
    // dropped last: dying before this leaves a lease the supervisors clear, on a job already settled
    await instances.dropJob(db, job.id, this.instanceId);
    return outcome;
  }

  /**
   * Hands active jobs back to the queue as they are, to be fetched again at once (their start time is
   * past): cancel, then resume. pg-boss counts the next start as a retry.
   */
  async release(name: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ensureQueue(name);
    await this.boss.cancel(name, ids);
    await this.boss.resume(name, ids);
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    const all = [...this.loopsOf.values()].flatMap((loops) => [...loops]);
    this.loopsOf.clear();
    await Promise.all(all.map((loop) => loop.stop()));
    await this.boss.stop({ graceful: true, wait: true, timeout: 5000 });
  }
}
