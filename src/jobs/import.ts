// The import worker: a pg-boss job per import runs its batches (in parallel parts on PostgreSQL) until the job ends.
// Resumable by construction (the cursor commits with each batch), and a second runner of one import only
// takes turns. An import whose instance dies is handed to another by the supervisor (supervisor.ts); one
// whose instance stops hands its job back itself; at start, imports still marked processing are queued
// again (the last resort, should a job have been lost).
import * as imports from '../domain/imports/imports.ts';
import { fromConfig } from '../domain/imports/verify/index.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { JobReleased } from './queue.ts';

const RETRY_LIMIT = 5;
const ABANDONED_AFTER_MS = 3_600_000;

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const deps: imports.WorkerDeps = {
    verifier: fromConfig(ctx.config),
    secret: ctx.config.secret,
    idsInNode: ctx.handle.kind === 'pglite',
  };
  let stopping = false;

  // PostgreSQL runs one INSERT on one core: two runners per import work two parts at once (measured in
  // bench/import.ts). PGlite has one connection, so a second runner would only wait.
  const runners = ctx.handle.kind === 'postgres' ? 2 : 1;
  const runOne = async (importId: string, runner: number) => {
    while (await imports.runBatch(ctx.db, deps, importId, runner)) {
      // stopping mid-import: hand the job back, another instance (or this one after restart) resumes it
      if (stopping) throw new JobReleased('Worker stopping; the import resumes from its last batch');
      // PGlite answers through microtasks only: without a macrotask turn, requests would starve until the import ends
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  const stopWork = await ctx.queue.work<imports.ImportJobData>(imports.QUEUE, async ({ importId }, job) => {
    // every runner ends its batch before the job is handed on, so none is still writing when the pool closes
    const ended = await Promise.allSettled(Array.from({ length: runners }, (_, i) => runOne(importId, i)));
    const failed = ended.find((r) => r.status === 'rejected' && !(r.reason instanceof JobReleased));
    if (failed) {
      const err = (failed as PromiseRejectedResult).reason as Error;
      ctx.log.error({ err, importId }, 'import batch failed');
      if (job.retryCount >= RETRY_LIMIT) await imports.fail(ctx.db, importId, err.message);
      throw err;
    }
    const released = ended.find((r) => r.status === 'rejected');
    if (released) throw (released as PromiseRejectedResult).reason;
  });

  await imports.removeAbandoned(ctx.db, new Date(Date.now() - ABANDONED_AFTER_MS));
  for (const r of await imports.resumable(ctx.db)) await ctx.queue.send(imports.QUEUE, { importId: r.id });

  return async () => {
    stopping = true;
    await stopWork();
  };
}
