// The import worker: a pg-boss job per import runs its batches (in parallel parts on PostgreSQL) until the job ends.
// Resumable by construction (the cursor commits with each batch); at start, imports still marked
// processing — their process died — are queued again, and a second runner of one import only takes turns.
import * as imports from '../domain/imports/imports.ts';
import { fromConfig } from '../domain/imports/verify/index.ts';
import type { StopFn, WorkerContext } from './context.ts';

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
      // stopping mid-import: fail this attempt so pg-boss hands it to another process (or to us after restart)
      if (stopping) throw new Error('Worker stopping; the import resumes from its last batch');
      // PGlite answers through microtasks only: without a macrotask turn, requests would starve until the import ends
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  // the batches in flight: stopping waits for them, so none is still writing when the pool closes
  const inFlight = new Set<Promise<unknown>>();
  await ctx.queue.work<imports.ImportJobData>(imports.QUEUE, async ({ importId }, job) => {
    const running = Promise.all(Array.from({ length: runners }, (_, i) => runOne(importId, i)));
    inFlight.add(running);
    try {
      await running;
    } catch (err) {
      if (stopping) throw err;
      ctx.log.error({ err, importId }, 'import batch failed');
      if (job.retryCount >= RETRY_LIMIT) await imports.fail(ctx.db, importId, (err as Error).message);
      throw err;
    } finally {
      inFlight.delete(running);
    }
  });

  await imports.removeAbandoned(ctx.db, new Date(Date.now() - ABANDONED_AFTER_MS));
  for (const r of await imports.resumable(ctx.db)) await ctx.queue.send(imports.QUEUE, { importId: r.id });

  return async () => {
    stopping = true;
    await Promise.allSettled(inFlight);
  };
}
