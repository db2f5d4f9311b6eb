// Bulk imports of one account: stage the rows, check the plan limit, start the job,
// then move staged rows into subscribers 1000 at a time. The job row holds all state: each batch commits
// its subscribers, events, counts and the cursor together, so a crash loses nothing and counts nothing twice.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import * as subscriberRepo from '../subscribers/queries.ts';
import type { ImportError, ImportJobOptions, ImportRow } from '../../db/schema/imports.ts';
import { LimitExceeded, NotFound, Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import { BATCH, rowCounts } from './batch.ts';
import { CHUNK, stageCsv, toStaged, type InputRow, type StageResult } from './csv.ts';
import { parseOptions, stored } from './options.ts';
import * as groups from '../subscribers/groups.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { PageQuery, pageOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const MAX_ROWS_PER_CALL = 50_000;

/** What queues the job: the pg-boss Queue in the app, anything with send() in tests. */
export interface JobQueue {
  send(name: string, data: object): Promise<unknown>;
}
export const QUEUE = 'import';
export interface ImportJobData {
  importId: string;
}

export interface Job {
  job_id: string;
  status: 'processing' | 'completed' | 'failed';
  message: string;
  file_name: string | null;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  failed_count: number;
  /** rows of subscribers who existed already, left alone (existing: skip) */
  skipped_count: number;
  errors: ImportError[];
  /** rows imported without a value that did not fit (on_bad_value drop_value, a bad time zone): the first 100 */
  warnings: ImportError[];
  warning_count: number;
  options: ImportJobOptions;
  group_ids: string[];
  created_at: Date;
  finished_at: Date | null;
}

export function toJob(r: ImportRow): Job {
  return {
    job_id: r.id,
    status: r.status === 'staging' ? 'processing' : r.status,
    message: messageOf(r),
    ...rowCounts(r),
    skipped_count: r.skipped_count,
    errors: r.errors,
    warnings: r.warnings,
    warning_count: r.warning_count,
    options: r.options,
    group_ids: r.group_ids,
    created_at: r.created_at,
    finished_at: r.finished_at,
  };
}

function messageOf(r: ImportRow): string {
  const dups = r.duplicate_count > 0 ? `, ${r.duplicate_count} duplicate rows merged (last row wins)` : '';
  const text =
    r.status === 'completed'
      ? `Import completed: ${r.created_count} created, ${r.updated_count} updated, ${r.failed_count} failed${dups}` +
        `${r.skipped_count > 0 ? `, ${r.skipped_count} existing left alone` : ''}` +
        `${r.warning_count > 0 ? `, ${r.warning_count} rows with a value left out` : ''}.`
      : r.status === 'failed'
        ? `Import failed: ${r.failure_reason ?? 'unknown error'}`
        : r.processed_rows === 0
          ? `Import started: ${r.total_rows} rows queued.`
          : `Import in progress: ${r.processed_rows} of ${r.total_rows} rows processed.`;
  return r.ignored_columns.length > 0 ? `${text} Ignored unknown columns: ${r.ignored_columns.join(', ')}.` : text;
}

export async function get(db: Db, accountId: string, importId: string): Promise<Job> {
  const row = z.guid().safeParse(importId).success ? await repo.find(db, accountId, importId.toLowerCase()) : undefined;
  if (!row) throw new NotFound('Import not found');
  return toJob(row);
}

export const ListQuery = PageQuery;
export type ListQuery = PageQuery;

export async function list(db: Db, accountId: string, query: unknown = {}): Promise<Page<Job>> {
  const q = parseInput(ListQuery, query);
  const [rows, total] = [await repo.page(db, accountId, q), await repo.count(db, accountId)];
  return pageOf(rows.map(toJob), q, total);
}

/** group_ids as the multipart field sends it: a JSON array of UUID strings. */
export function parseGroupIds(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw Validation.field('group_ids', 'group_ids must be a JSON array of group UUIDs');
  }
  const parsed = z.array(z.guid()).max(1000).safeParse(value);
  if (!parsed.success) throw Validation.field('group_ids', 'group_ids must be a JSON array of group UUIDs');
  return parsed.data;
}

/** An upload in progress: its rows are staged, nothing is visible until start(). */
export interface Upload {
  importId: string;
  accountId: string;
  staged: StageResult;
}

/**
 * Streams a CSV into a new staging import, read with the person's options (ImportOptions: the mapping,
 * existing, consent_note, on_bad_value; raw multipart text is parsed here). Throws 400s for content that
 * is not an importable CSV and for options that do not fit.
 */
export async function stageFile(
  db: Db,
  accountId: string,
  file: Readable,
  fileName: string | null,
  rawOptions: Record<string, unknown> = {},
): Promise<Upload> {
  const options = parseOptions(rawOptions);
  const row = await repo.insert(db, accountId, {
    source: 'api',
    file_name: fileName?.slice(0, 255) ?? null,
    first_row: 2,
    options: stored(options),
  });
  try {
    return { importId: row.id, accountId, staged: await stageCsv(db, accountId, row.id, file, options) };
  } catch (err) {
    await repo.remove(db, row.id);
    throw err;
  }
}

/** Drops an upload that will not start (a truncated file, a bad request). */
export async function discard(db: Db, upload: Upload): Promise<void> {
  await repo.remove(db, upload.importId);
}

/**
 * Checks the groups and the plan limit and starts the job (status processing). The account row is locked
 * while counting, and imports still running reserve what they may yet create, so two imports started at
 * once cannot both fit into the same free places. On any refusal the upload is discarded.
 */
export async function start(
  db: Db,
  queue: JobQueue,
  upload: Upload,
  groupIds: string[] | string | undefined,
): Promise<Job> {
  const { importId, accountId } = upload;
  let row: ImportRow;
  try {
    // a string is the multipart field's JSON text
    const groups = await subscribers.checkGroups(
      db,
      accountId,
      Array.isArray(groupIds) ? groupIds : parseGroupIds(groupIds),
    );
    row = await inTransaction(db, async (trx) => {
      const { count, limit } = await subscriberRepo.lockAndCount(trx, accountId);
      const reserved = await repo.reservedByOthers(trx, accountId, importId);
      // one pass over the staged rows: duplicates marked (the last row wins) and new addresses counted
      const { duplicates: duplicate_count, new_count: newCount } = await repo.markDuplicatesAndCountNew(
        trx,
        accountId,
        importId,
        upload.staged.total_rows >= count,
      );
      // landing exactly on the limit is allowed
      if (count + reserved + newCount > limit) {
        throw new LimitExceeded('Import would exceed the plan limit', {
          current_count: count + reserved,
          import_count: newCount,
          limit,
        });
      }
      const started = await repo.start(trx, accountId, importId, {
        ...upload.staged,
        new_count: newCount,
        duplicate_count,
        group_ids: groups,
      });
      await repo.createParts(
        trx,
        importId,
        started.last_row,
        started.end_row,
        partsFor(upload.staged.total_rows),
        BATCH,
      );
      return started;
    });
  } catch (err) {
    await repo.remove(db, importId);
    throw err;
  }
  // after the commit; if this process dies first, the worker finds the job at its next start
  await queue.send(QUEUE, { importId } satisfies ImportJobData);
  return toJob(row);
}

/** Up to 4 parts of at least 10 batches each: enough for two runners to share, few enough to finish together. */
function partsFor(rows: number): number {
  return Math.max(1, Math.min(4, Math.floor(rows / (10 * BATCH))));
}

export const RowsInput = z.object({
  rows: z
    .array(z.record(z.string(), z.unknown()))
    .min(1, 'At least one subscriber is required')
    .max(MAX_ROWS_PER_CALL, `At most ${MAX_ROWS_PER_CALL} subscribers per call`),
  groupIds: z.array(z.guid('Each group id must be a UUID')).max(1000),
  source: z.enum(['mcp', 'api']),
});

/** The MCP tool import_subscribers_to_group: the same job as a CSV, from rows given inline. */
export async function startFromRows(
  db: Db,
  queue: JobQueue,
  accountId: string,
  input: { rows: InputRow[]; groupIds: string[]; source: 'mcp' | 'api' },
): Promise<Job> {
  const a = parseInput(RowsInput, input);
  const groups = await subscribers.checkGroups(db, accountId, a.groupIds);
  const defs = await fields.definitions(db, accountId);
  const row = await repo.insert(db, accountId, { source: a.source, file_name: null, first_row: 1 });
  const upload: Upload = {
    importId: row.id,
    accountId,
    staged: { total_rows: a.rows.length, end_row: a.rows.length, ignored_columns: [] },
  };
  try {
    for (let i = 0; i < a.rows.length; i += CHUNK) {
      // rows are numbered from 1 here: there is no header row
      const chunk = a.rows
        .slice(i, i + CHUNK)
        .map((r, k) =>
          toStaged(i + k + 1, { ...r, custom_fields: isObject(r.custom_fields) ? r.custom_fields : {} }, defs),
        );
      await repo.stage(db, row.id, chunk);
    }
  } catch (err) {
    await repo.remove(db, row.id);
    throw err;
  }
  return start(db, queue, upload, groups);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { runBatch, fail, resumable, removeAbandoned, BATCH, type WorkerDeps } from './batch.ts';

/**
 * import_subscribers_to_group: the same durable job as a CSV import, from rows given inline. The group must
 * exist in the account ("Group not found"); bad rows are counted as failed by the job, not refused here.
 */
export async function startForGroup(
  db: Db,
  queue: JobQueue,
  accountId: string,
  groupId: string,
  rows: InputRow[],
  source: 'mcp' | 'api' = 'mcp',
): Promise<Job> {
  await groups.ensureExists(db, accountId, groupId);
  return startFromRows(db, queue, accountId, { rows, groupIds: [groupId], source });
}
