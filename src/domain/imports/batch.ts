// The import job's work, one batch at a time. Network checks (verification) and
// suppression hashes happen before the transaction; inside it, the batch's part is claimed and its cursor
// read, the batch upserted set-based, and counts, errors and cursor committed together. Addresses are
// deduplicated before the job starts, so parts never touch the same subscriber and can run at once.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import * as repo from './batchQueries.ts';
import type { ImportError, ImportRow } from '../../db/schema/imports.ts';
import { recordEvent } from '../events/log.ts';
import * as suppressions from '../subscribers/suppressions.ts';
import type { Verifier } from './verify/verifier.ts';
import { inTransaction } from '../transaction.ts';

/** spec "Import batch size": rows per worker transaction */
export const BATCH = 1000;
const MAX_ERRORS = 100;

export interface WorkerDeps {
  verifier: Verifier;
  /** HMAC key of suppressions.email_hash */
  secret: string;
  /**
   * Make the batch's row ids here (crypto.randomUUID) instead of with gen_random_uuid(): on PGlite that
   * asks JavaScript for entropy once per id, ~4 us each, 2 per imported row; Node's is ~0.1 us.
   */
  idsInNode?: boolean;
}

/**
 * Runs the next batch of one import, in the part `runner` prefers (runners of one import spread over the
 * parts; a part held by another runner is skipped). Returns false once the job has nothing more to do.
 */
export async function runBatch(db: Db, deps: WorkerDeps, importId: string, runner = 0): Promise<boolean> {
  // one round trip: the job, its open parts, and whether the account verifies or has suppressions
  const plan = await repo.plan(db, importId);
  if (!plan || plan.status !== 'processing') return false;
  if (plan.open.length === 0) return finishIfDone(db, importId);
  const part = plan.open[runner % plan.open.length]!;
  const from = part.last_row;
  const to = Math.min(from + BATCH, part.end_row);
  const skips = await rowsToSkip(db, deps, plan.account_id, importId, from, to, plan);

  const ran = await inTransaction(db, async (trx) => {
    // one statement: claim the part (while its cursor is at `from`), the batch's subscribers, memberships and
    // events, its cursor, and the job row's counts and first errors (that row last: runners of other parts wait
    // for its lock only until this commit)
    const r = await repo.upsertBatch(trx, plan.account_id, importId, {
      part: part.part,
      from,
      to,
      skipped: skips,
      groupIds: plan.group_ids,
      maxErrors: MAX_ERRORS,
      updateExisting: plan.options.existing !== 'skip',
      note: plan.options.consent_note ?? null,
      ids: deps.idsInNode ? { subscribers: uuids(to - from), events: uuids(to - from) } : undefined,
    });
    if (!r.claimed) return false; // another runner holds or moved this part: plan again
    if (!r.advanced) throw new Error('Import ended while a batch ran');
    return true;
  });
  // the last part is held by another runner: give it a moment instead of spinning on the lock
  if (!ran) await new Promise((r) => setTimeout(r, 50));
  return true;
}

const uuids = (n: number) => Array.from({ length: n }, () => randomUUID());

/** Completes the job once every part is done (one runner does it; the others find it ended). */
async function finishIfDone(db: Db, importId: string): Promise<false> {
  const finished = await inTransaction(db, async (trx) => {
    const job = await repo.lock(trx, importId);
    if (!job || job.status !== 'processing') return false;
    if ((await repo.openParts(trx, importId)).length > 0) return false;
    const done = await repo.finish(trx, importId, { status: 'completed' });
    await recordEvent(trx, done.account_id, 'import.completed', countsOf(done));
    return true;
  });
  if (finished) await afterEnd(db, importId);
  return false;
}

/** Once a job has ended: its staged rows go, the search indexes take in what it added, the planner learns its size. */
async function afterEnd(db: Db, importId: string): Promise<void> {
  await repo.dropStaged(db, importId);
  await repo.flushSearchIndexes(db).catch(() => {}); // an optimisation: without the right, autovacuum does it later
  await repo.analyzeImported(db).catch(() => {}); // likewise
}

/** Ends a job that cannot go on (retries exhausted), with the reason, and writes import.completed. */
export async function fail(db: Db, importId: string, reason: string): Promise<void> {
  const done = await inTransaction(db, async (trx) => {
    const job = await repo.lock(trx, importId);
    if (!job || job.status !== 'processing') return undefined;
    const row = await repo.finish(trx, importId, { status: 'failed', failure_reason: reason });
    await recordEvent(trx, row.account_id, 'import.completed', countsOf(row));
    return row;
  });
  if (done) await afterEnd(db, importId);
}

type Counted = Pick<ImportRow, 'file_name' | RowCount>;
type RowCount = 'total_rows' | 'processed_rows' | 'created_count' | 'updated_count' | 'failed_count';

/** The file and its row counts, as both the job view and the import.completed event show them. */
export function rowCounts(r: Counted): Counted {
  return {
    file_name: r.file_name,
    total_rows: r.total_rows,
    processed_rows: r.processed_rows,
    created_count: r.created_count,
    updated_count: r.updated_count,
    failed_count: r.failed_count,
  };
}

function countsOf(r: Awaited<ReturnType<typeof repo.finish>>) {
  return {
    import_id: r.id,
    status: r.status,
    ...rowCounts(r),
    ...(r.failure_reason && { reason: r.failure_reason }),
  };
}

/** Rows of the batch that must not be imported: forgotten addresses (suppressions) and, when the account verifies, undeliverable ones. */
async function rowsToSkip(
  db: Db,
  deps: WorkerDeps,
  accountId: string,
  importId: string,
  from: number,
  to: number,
  { verify_emails: verify, any_suppressed: anySuppressed }: { verify_emails: boolean; any_suppressed: boolean },
): Promise<ImportError[]> {
  // most accounts have no suppressions and no verification: then there is nothing to hash or look up
  if (!anySuppressed && !verify) return [];
  const rows = await repo.candidates(db, importId, from, to);
  if (rows.length === 0) return [];
  const emails = rows.map((r) => r.email);
  const suppressed = anySuppressed
    ? await suppressions.suppressedAmong(db, deps.secret, accountId, emails)
    : new Set<string>();
  const undeliverable = verify
    ? await deps.verifier.check(emails.filter((e) => !suppressed.has(e.trim().toLowerCase())))
    : new Map<string, string>();
  const out: ImportError[] = [];
  for (const r of rows) {
    const key = r.email.trim().toLowerCase();
    // a forgotten address is not written back, not even into the error list
    if (suppressed.has(key))
      out.push({
        row: r.row_no,
        email: null,
        reason: 'Address was forgotten (suppressed); add it through the API to re-subscribe it',
      });
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
