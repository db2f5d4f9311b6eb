// The suppression list: addresses a campaign never mails. Every entry of the account's own is a salted
// hash, HMAC-SHA256(config.secret, lower(trim(email))), which imports and campaign audiences check, so a
// forgotten address is not silently re-added or mailed (an explicit add through the API is still allowed).
// Forgotten entries are the hash alone; manual ones keep the address too, so the list can show and export
// it. Bounced and complained subscribers are listed from their status (campaigns mail active ones only).
import { createHmac } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { csvCell } from '../csv.ts';
import { Conflict, NotFound, StateConflict, Validation } from '../errors.ts';
import { offsetOf, pageOf, PageQuery, type Page } from '../paging.ts';
import { isStorable } from '../storable.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as repo from './forgetQueries.ts';
import * as listRepo from './suppressionQueries.ts';
import { Email } from './subscribers.ts';

export type SuppressionReason = 'forgotten';

/** The stored form of an address: the same for every spelling that compares equal (case, spaces). */
export function hashEmail(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');
}

export async function suppress(
  db: Db,
  secret: string,
  accountId: string,
  email: string,
  reason: SuppressionReason,
): Promise<void> {
  await repo.insertSuppression(db, accountId, hashEmail(secret, email), reason);
}

export async function isSuppressed(db: Db, secret: string, accountId: string, email: string): Promise<boolean> {
  return (await suppressedAmong(db, secret, accountId, [email])).size > 0;
}

/** The addresses among `emails` that are suppressed, lower-cased and trimmed (one query for a whole batch). */
export async function suppressedAmong(
  db: Db,
  secret: string,
  accountId: string,
  emails: string[],
): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const byHash = new Map(emails.map((e) => [hashEmail(secret, e), e.trim().toLowerCase()]));
  const found = await repo.suppressedHashes(db, accountId, [...byHash.keys()]);
  return new Set(found.map((h) => byHash.get(h)!));
}

export const NOT_FOUND = 'Suppression not found';

/** One entry of the list; `email` is null for a forgotten address (only its hash is kept). */
export interface Entry {
  id: string;
  email: string | null;
  reason: 'bounced' | 'complained' | 'forgotten' | 'manual';
  subscriber_id: string | null;
  created_at: Date;
}

export const ListQuery = PageQuery;
export type ListQuery = z.input<typeof ListQuery>;

export const NewSuppression = z.object({ email: Email });
export type NewSuppression = z.input<typeof NewSuppression>;

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<Entry>> {
  const p = parseInput(ListQuery, query);
  const [rows, total] = await Promise.all([
    listRepo.page(db, accountId, p.per_page, offsetOf(p)),
    listRepo.count(db, accountId),
  ]);
  return pageOf(rows as Entry[], p, total);
}

/** Adds one address (reason manual); 409 when it is on the list already. */
export async function add(db: Db, secret: string, accountId: string, input: unknown): Promise<Entry> {
  const { email } = parseInput(NewSuppression, input);
  const [entry] = await addMany(db, secret, accountId, [email]);
  if (!entry) throw new Conflict('Address is already on the suppression list');
  return entry;
}

/** The most addresses one CSV may hold. */
export const MAX_CSV_ROWS = 50_000;
const SHOWN_INVALID = 100;

export interface CsvResult {
  added: number;
  already_listed: number;
  invalid_count: number;
  /** the first rows that are not an address, 1-based as a spreadsheet numbers them */
  invalid: { row: number; value: string; reason: string }[];
}

/**
 * A CSV of addresses, reason manual: the column headed `email` (or the first column when no header names
 * one). Rows that are not an address are reported, not fatal; a file with NUL or other binary content, or
 * without any address at all, is a Validation.
 */
export async function addCsv(db: Db, secret: string, accountId: string, text: unknown): Promise<CsvResult> {
  const notCsv = (why: string) => Validation.field('file', `The file is not a CSV of email addresses: ${why}`);
  if (typeof text !== 'string' || text.trim() === '') throw notCsv('it is empty');
  if (!isStorable(text)) throw notCsv('it holds binary content (NUL or control characters)');
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      delimiter: [',', ';', '\t'],
    });
  } catch (err) {
    throw notCsv((err as Error).message);
  }
  const head = rows[0]?.map((c) => c.trim().toLowerCase()) ?? [];
  const named = head.findIndex((c) => c === 'email' || c === 'email_address' || c === 'e_mail');
  const column = Math.max(named, 0);
  const start = named >= 0 ? 1 : 0;
  if (rows.length - start > MAX_CSV_ROWS) throw notCsv(`it has more than ${MAX_CSV_ROWS} rows`);
  const emails: string[] = [];
  const invalid: CsvResult['invalid'] = [];
  let invalidCount = 0;
  for (let i = start; i < rows.length; i++) {
    const value = rows[i]![column] ?? '';
    const parsed = Email.safeParse(value);
    if (parsed.success) emails.push(parsed.data);
    else if (invalidCount++ < SHOWN_INVALID)
      invalid.push({ row: i + 1, value: value.slice(0, 254), reason: parsed.error.issues[0]!.message });
  }
  if (emails.length === 0) throw notCsv('no row holds an email address');
  const unique = [...new Map(emails.map((e) => [e.toLowerCase(), e])).values()];
  const added = await addMany(db, secret, accountId, unique);
  return { added: added.length, already_listed: emails.length - added.length, invalid_count: invalidCount, invalid };
}

async function addMany(db: Db, secret: string, accountId: string, emails: string[]): Promise<Entry[]> {
  return inTransaction(db, async (trx) => {
    const rows = emails.map((email) => ({ email, email_hash: hashEmail(secret, email) }));
    const added: Entry[] = [];
    for (let i = 0; i < rows.length; i += 5_000) {
      added.push(...((await listRepo.insertManual(trx, accountId, rows.slice(i, i + 5_000))) as Entry[]));
    }
    await listRepo.recheckHolders(
      trx,
      accountId,
      added.map((e) => e.email!.trim().toLowerCase()),
    );
    return added;
  });
}

/** Removes an entry of the list; a bounced or complained subscriber leaves it by a change of status. */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (await listRepo.remove(trx, accountId, id)) return;
    if (await listRepo.isStatusEntry(trx, accountId, id))
      throw new StateConflict(
        'A bounced or complained subscriber leaves the suppression list when their status changes; edit the subscriber',
      );
    throw new NotFound(NOT_FOUND);
  });
}

export const FORGOTTEN_TEXT = 'forgotten — address not kept';
const EXPORT_PAGE = 5_000;

/**
 * The whole list as CSV lines (id, email, reason, subscriber_id, created_at), newest first; a forgotten
 * entry's email cell is empty, as its address is not kept.
 */
export async function* exportCsv(db: Db, accountId: string): AsyncGenerator<string> {
  yield 'id,email,reason,subscriber_id,created_at\n';
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const rows = await listRepo.page(db, accountId, EXPORT_PAGE, offset);
    for (const r of rows) yield [r.id, r.email, r.reason, r.subscriber_id, r.created_at].map(csvCell).join(',') + '\n';
    if (rows.length < EXPORT_PAGE) return;
  }
}
