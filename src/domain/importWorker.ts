// The import job's work, one batch at a time (DESIGN §4, STYLE §6). Network checks (verification) and
// suppression hashes happen before the transaction; inside it, the job row is locked, the cursor read,
// the batch upserted set-based, and counts, errors and cursor committed together.
import type { Db } from '../db/client.ts';
import * as repo from '../db/queries/imports.ts';
import type { ImportError } from '../db/schema/imports.ts';
import { recordEvent } from './events.ts';
import * as suppressions from './suppressions.ts';
import type { Verifier } from './verify/index.ts';

/** spec "Import batch size": rows per worker transaction */
export const BATCH = 1000;
const MAX_ERRORS = 100;

export interface WorkerDeps {
  verifier: Verifier;
  /** HMAC key of suppressions.email_hash */
  secret: string;
}

/** Runs the next batch of one import. Returns false once the job has nothing more to do. */
export async function runBatch(db: Db, deps: WorkerDeps, importId: string): Promise<boolean> {
  const plan = await db
    .selectFrom('imports')
    .innerJoin('accounts', 'accounts.id', 'imports.account_id')
    .select(['imports.status', 'imports.last_row', 'imports.end_row', 'imports.account_id', 'accounts.verify_emails'])
    .where('imports.id', '=', importId)
    .executeTakeFirst();
  if (!plan || plan.status !== 'processing') return false;
  const from = plan.last_row;
  const to = Math.min(from + BATCH, plan.end_row);
  const skips = from < to ? await rowsToSkip(db, deps, plan.account_id, importId, from, to, plan.verify_emails) : [];

  const outcome = await db.transaction().execute(async (trx) => {
    const job = await repo.lock(trx, importId);
    if (!job || job.status !== 'processing') return 'stop';
    if (job.last_row !== from) return 'again'; // another runner of this import moved the cursor meanwhile
    if (from < to) {
      const { created, updated } = await repo.upsertBatch(trx, job.account_id, importId, { from, to, skip: skips.map((s) => s.row), groupIds: job.group_ids });
      const staged = await repo.stagedFailures(trx, importId, from, to, Math.max(0, MAX_ERRORS - job.errors.length));
      const errors = [...job.errors, ...[...staged.first, ...skips].sort((a, b) => a.row - b.row)].slice(0, MAX_ERRORS);
      await repo.advance(trx, importId, { last_row: to, processed: to - from, created, updated, failed: staged.count + skips.length, errors });
    }
    if (to < job.end_row) return 'again';
    const done = await repo.finish(trx, importId, { status: 'completed' });
    await recordEvent(trx, done.account_id, 'import.completed', countsOf(done));
    return 'finished';
  });
  if (outcome === 'finished') await repo.dropStaged(db, importId);
  return outcome === 'again';
}

/** Ends a job that cannot go on (retries exhausted), with the reason, and writes import.completed. */
export async function fail(db: Db, importId: string, reason: string): Promise<void> {
  const done = await db.transaction().execute(async (trx) => {
    const job = await repo.lock(trx, importId);
    if (!job || job.status !== 'processing') return undefined;
    const row = await repo.finish(trx, importId, { status: 'failed', failure_reason: reason });
    await recordEvent(trx, row.account_id, 'import.completed', countsOf(row));
    return row;
  });
  if (done) await repo.dropStaged(db, importId);
}

function countsOf(r: Awaited<ReturnType<typeof repo.finish>>) {
  return {
    import_id: r.id,
    status: r.status,
    file_name: r.file_name,
    total_rows: r.total_rows,
    processed_rows: r.processed_rows,
    created_count: r.created_count,
    updated_count: r.updated_count,
    failed_count: r.failed_count,
    ...(r.failure_reason && { reason: r.failure_reason }),
  };
}

/** Rows of the batch that must not be imported: forgotten addresses (suppressions) and, when the account verifies, undeliverable ones. */
async function rowsToSkip(db: Db, deps: WorkerDeps, accountId: string, importId: string, from: number, to: number, verify: boolean): Promise<ImportError[]> {
  // most accounts have no suppressions and no verification: then there is nothing to hash or look up
  const anySuppressed = await repo.hasSuppressions(db, accountId);
  if (!anySuppressed && !verify) return [];
  const rows = await repo.candidates(db, importId, from, to);
  if (rows.length === 0) return [];
  const emails = rows.map((r) => r.email);
  const suppressed = anySuppressed ? await suppressions.suppressedAmong(db, deps.secret, accountId, emails) : new Set<string>();
  const undeliverable = verify ? await deps.verifier.check(emails.filter((e) => !suppressed.has(e.trim().toLowerCase()))) : new Map<string, string>();
  const out: ImportError[] = [];
  for (const r of rows) {
    const key = r.email.trim().toLowerCase();
    // a forgotten address is not written back, not even into the error list
    if (suppressed.has(key)) out.push({ row: r.row_no, email: null, reason: 'Address was forgotten (suppressed); add it through the API to re-subscribe it' });
    else if (undeliverable.has(key)) out.push({ row: r.row_no, email: r.email, reason: undeliverable.get(key)! });
  }
  return out;
}

/** Imports left in 'processing' by a process that stopped (the worker enqueues them again at start). */
export function resumable(db: Db) {
  return repo.running(db);
}

/** Uploads that died before their job started, and staged rows of imports that already ended. */
export async function removeAbandoned(db: Db, olderThan: Date): Promise<void> {
  await repo.removeAbandoned(db, olderThan);
}
