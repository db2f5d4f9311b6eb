// Streams a CSV upload into an import's staging chunks: sniffs the delimiter, maps the header, validates
// each row (email, names, phone, custom-field types) and writes each chunk of 1000 rows as one staging row
// as it arrives, so memory stays flat whatever the file size. Rows that cannot be imported are staged with
// their reason.
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import { isStorable } from '../storable.ts';
import * as subscribers from '../subscribers/subscribers.ts';

export const CHUNK = 1000;
const SNIFF_BYTES = 64 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;
const COLUMNS = ['email', 'first_name', 'last_name', 'phone'] as const;
const ALIASES: Record<string, (typeof COLUMNS)[number]> = {
  email_address: 'email',
  e_mail: 'email',
  firstname: 'first_name',
  lastname: 'last_name',
};

/** One row as the MCP tool or a CSV line gives it. */
export interface InputRow {
  email?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  phone?: unknown;
  custom_fields?: Record<string, unknown>;
}

export class NotCsv extends Validation {
  constructor(reason: string) {
    super({ file: [reason] }, reason);
  }
}

const text = (v: unknown) =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : v == null ? '' : String(v);
// the pattern z.email() checks (subscribers.Email): a row it accepts passes here without building a zod parse
const EMAIL = z.regexes.email;

/**
 * Validates one row into its staged form (keys without a value left out); a row that cannot be imported
 * keeps the reason instead. The rules are those of creating one subscriber (subscribers.NewSubscriber) and
 * fields.coerceWith: the common case — a well-formed address, short storable names, custom values that fit
 * their type — is checked directly with the same tests, and anything else goes through those schemas, so
 * acceptance and every message are theirs (test/jobs/import.test.ts compares both on awkward input).
 */
export function toStaged(rowNo: number, input: InputRow, defs: Map<string, fields.FieldType>): repo.StagedRow {
  const email = text(input.email);
  if (!email) return { row_no: rowNo, error: 'Email is missing' };
  const first = text(input.first_name);
  const last = text(input.last_name);
  const phone = text(input.phone);
  const row: repo.StagedRow = { row_no: rowNo, email };
  if (
    email.length <= 254 &&
    EMAIL.test(email) &&
    nameOk(first) &&
    nameOk(last) &&
    (phone === '' || subscribers.NewSubscriber.shape.phone.safeParse(phone).success)
  ) {
    if (first) row.first_name = first;
    if (last) row.last_name = last;
    if (phone) row.phone = phone;
  } else {
    // empty cells mean "leave as it is", so they are not sent
    const candidate: Record<string, unknown> = { email };
    if (first) candidate.first_name = first;
    if (last) candidate.last_name = last;
    if (phone) candidate.phone = phone;
    const parsed = subscribers.NewSubscriber.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return {
        row_no: rowNo,
        email,
        error: issue.path[0] === 'email' ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
      };
    }
    row.email = parsed.data.email;
    if (parsed.data.first_name != null) row.first_name = parsed.data.first_name;
    if (parsed.data.last_name != null) row.last_name = parsed.data.last_name;
    if (parsed.data.phone != null) row.phone = parsed.data.phone;
  }
  const custom = input.custom_fields;
  if (custom) {
    let kept: Record<string, unknown> | undefined;
    for (const key in custom) {
      const v = custom[key];
      if (v === undefined || v === null || text(v) === '') continue;
      const type = defs.get(key);
      const coerced =
        type === undefined || (typeof v === 'string' && !isStorable(v)) ? undefined : fields.coerceValue(type, v);
      if (coerced === undefined) return { ...row, error: customFieldError(custom, defs) };
      if (coerced !== null) (kept ??= {})[key] = coerced;
    }
    if (kept) row.custom_fields = kept;
  }
  return row;
}

const nameOk = (s: string) => s.length <= 255 && isStorable(s);

/** The message fields.coerceWith gives for the row's given custom values (one of them does not fit). */
function customFieldError(custom: Record<string, unknown>, defs: Map<string, fields.FieldType>): string {
  const given = Object.entries(custom).filter(([, v]) => v !== undefined && v !== null && text(v) !== '');
  try {
    fields.coerceWith(defs, Object.fromEntries(given));
  } catch (err) {
    if (err instanceof Validation) return err.message;
    throw err;
  }
  throw new Error('customFieldError: every value fits');
}

export interface StageResult {
  total_rows: number;
  /** row_no of the last row */
  end_row: number;
  ignored_columns: string[];
}

/** Stages the rows of a CSV stream into `importId`. Throws NotCsv (400) for content that is not CSV. */
export async function stageCsv(db: Db, accountId: string, importId: string, stream: Readable): Promise<StageResult> {
  const defs = await fields.definitions(db, accountId);
  const { parser, abandon } = await openParser(stream);
  let header: Header | undefined;
  let rowNo = 1;
  let chunk: repo.StagedRow[] = [];
  // one chunk is written while the next is parsed (PostgreSQL works in parallel with us; PGlite just queues).
  // flush() queues the chunk behind the writes before it, at once (so writes keep the order of the calls),
  // and resolves when the write before it is done; `writing` ends with the last one
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const rows = chunk;
    chunk = [];
    const previous = writing;
    writing = previous.then(() => repo.stage(db, importId, rows));
    writing.catch(() => {}); // awaited at the end; this only keeps Node from calling it unhandled
    return previous;
  };
  try {
    // records are handled as they come ('data'), not one awaited iteration each: the parser pauses only
    // while a full chunk waits for the previous one to be written
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (err: unknown) => {
        failed = true;
        reject(err);
      };
      parser.on('data', (record: string[]) => {
        if (failed) return;
        try {
          if (!header) {
            header = mapHeader(record, defs);
            return;
          }
          rowNo++;
          chunk.push(toStaged(rowNo, header.read(record), defs));
          if (chunk.length >= CHUNK) {
            parser.pause();
            flush().then(() => parser.resume(), fail);
          }
        } catch (err) {
          fail(err);
        }
      });
      // 'end' may come while a full chunk's flush still waits (the parser was paused after the last record)
      parser.once('end', () => {
        void flush();
        writing.then(resolve, fail);
      });
      parser.once('error', fail);
      // destroyed without an error (abandoned): nothing more will come
      parser.once('close', () => (parser.readableEnded ? undefined : fail(new Error('CSV parsing stopped'))));
    });
  } catch (err) {
    abandon();
    await writing.catch(() => {}); // nothing may still be writing when the caller discards the import
    if (err instanceof Validation) throw err;
    const code = (err as { code?: string }).code;
    if (code?.startsWith('CSV_')) throw new NotCsv(`File is not a valid CSV: ${(err as Error).message}`);
    throw err;
  }
  if (!header) throw new NotCsv('File is not a CSV: it is empty');
  return { total_rows: rowNo - 1, end_row: rowNo, ignored_columns: header.ignored };
}

interface Header {
  ignored: string[];
  read(record: string[]): InputRow;
}

/** Header names are trimmed and case-insensitive; custom-field columns match a field's key or name. */
function mapHeader(record: string[], defs: Map<string, fields.FieldType>): Header {
  const byName = new Map<string, string>();
  for (const key of defs.keys()) byName.set(key, key);
  const normal = (h: string) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
  const columns: { index: number; column?: (typeof COLUMNS)[number]; field?: string }[] = [];
  const ignored: string[] = [];
  const taken = new Set<string>();
  record.forEach((raw, index) => {
    const name = normal(raw);
    if (name === '') return;
    const column = (COLUMNS as readonly string[]).includes(name) ? (name as (typeof COLUMNS)[number]) : ALIASES[name];
    const field = column ? undefined : byName.get(name);
    const target = column ?? (field && `custom_fields.${field}`);
    if (!target || taken.has(target)) return void ignored.push(raw.trim());
    taken.add(target);
    columns.push({ index, column, field });
  });
  if (!taken.has('email')) {
    if (record.some((h) => /[\u0000-\u0008\u000e-\u001f]/.test(h))) throw new NotCsv('File is not a CSV');
    throw Validation.field('file', 'No email column: the header row must have an "email" column');
  }
  return {
    ignored,
    read(values) {
      const row: InputRow = {};
      const custom: Record<string, unknown> = {};
      for (const c of columns) {
        const v = values[c.index];
        if (c.column) row[c.column] = v;
        else custom[c.field!] = v;
      }
      row.custom_fields = custom;
      return row;
    },
  };
}

/**
 * Reads the first line to check the content and pick the delimiter, then feeds the whole stream to
 * the parser. abandon() stops parsing but keeps reading the upload to its end, so the client, still
 * sending, gets our answer instead of a reset connection.
 */
async function openParser(stream: Readable): Promise<{ parser: Parser; abandon(): void }> {
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const drain = async () => {
    while (!(await source.next()).done);
  };
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < SNIFF_BYTES && !head.includes(10)) {
    const next = await source.next();
    if (next.done) {
      done = true;
      break;
    }
    head = Buffer.concat([head, next.value]);
  }
  try {
    checkText(head);
  } catch (err) {
    if (!done) await drain();
    throw err;
  }
  const parser = parse({
    delimiter: sniffDelimiter(head),
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
  });
  const stop = new AbortController();
  let stopped = false;
  const feed = async (buf: Buffer) => {
    if (stopped) return;
    try {
      checkText(buf);
    } catch (err) {
      stopped = true;
      parser.destroy(err as Error);
      return;
    }
    if (!parser.write(buf)) await once(parser, 'drain', { signal: stop.signal }).catch(() => {});
  };
  void (async () => {
    await feed(head);
    while (!done) {
      const next = await source.next();
      if (next.done) break;
      await feed(next.value);
    }
    if (!stopped) parser.end();
  })().catch((err) => parser.destroy(err));
  return {
    parser,
    abandon() {
      stopped = true;
      stop.abort();
      parser.destroy();
    },
  };
}

// binary files (images, spreadsheets, UTF-16 text) carry NUL bytes; CSV text never does
function checkText(buf: Buffer) {
  if (buf.includes(0)) throw new NotCsv('File is not a CSV: it contains binary data (save it as UTF-8 CSV)');
}

/** The candidate that occurs most often outside quotes in the header line; comma on a tie. */
export function sniffDelimiter(head: Buffer): string {
  const end = head.indexOf(10);
  const line = head.subarray(0, end === -1 ? head.length : end).toString('utf8');
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best: string = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}
