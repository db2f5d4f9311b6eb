// Streams a CSV upload into an import's staging chunks: has its bytes checked (fileCheck.ts), sniffs the
// delimiter, maps the header, validates each row (email, names, phone, custom-field types) and writes each
// chunk of 1000 rows as one staging row as it arrives, so memory stays flat whatever the file size. Rows that
// cannot be imported are staged with their reason; a file the parser cannot read is a 400 naming the row.
// The parser's work and memory are bounded whatever the file holds (csvBounds.ts).
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { CsvError, type Parser } from 'csv-parse';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { checkHead, NotCsv, textChecker } from './fileCheck.ts';
import {
  boundedParser,
  MAX_COLUMNS,
  MAX_FIELD,
  oversizedField,
  recordDelimiter,
  slices,
  tooLong,
  tooManyColumns,
} from './csvBounds.ts';
import { Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import { isStorable } from '../storable.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { isTimeZone } from '../validation.ts';
import { SKIP, SUBSCRIBER_COLUMNS, type ImportOptions } from './options.ts';

export const CHUNK = 1000;
const MAX_SHOWN = 320;
const SHOWN_IGNORED = 10;
const SNIFF_BYTES = 64 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;
const COLUMNS = SUBSCRIBER_COLUMNS;
const ALIASES: Record<string, (typeof COLUMNS)[number]> = {
  email_address: 'email',
  e_mail: 'email',
  firstname: 'first_name',
  lastname: 'last_name',
  timezone: 'time_zone',
};

/** How every CSV is read (the delimiter is sniffed per file). */
export const PARSE_OPTIONS = {
  bom: true,
  relax_column_count: true,
  // a quote inside an unquoted value (bob@exa"mple.com, 5'11") is kept as text: the row's own checks judge it
  relax_quotes: true,
  skip_empty_lines: true,
} as const;

/** One row as the MCP tool or a CSV line gives it. */
export interface InputRow {
  email?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  phone?: unknown;
  time_zone?: unknown;
  custom_fields?: Record<string, unknown>;
}

export { NotCsv };

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
export function toStaged(
  rowNo: number,
  input: InputRow,
  defs: Map<string, fields.FieldType>,
  onBadValue: ImportOptions['on_bad_value'] = 'refuse_row',
): repo.StagedRow {
  const email = text(input.email);
  if (!email) return { row_no: rowNo, error: 'Email is missing' };
  let first = text(input.first_name);
  let last = text(input.last_name);
  let phone = text(input.phone);
  const warnings: string[] = [];
  const zone = text(input.time_zone);
  if (zone && !isTimeZone(zone)) warnings.push(`time_zone: "${clip(zone)}" is not an IANA time zone name; left out`);
  if (onBadValue === 'drop_value') {
    // a bad name or phone is dropped from the row with a warning; only the address can refuse it
    const check = (key: 'first_name' | 'last_name' | 'phone', v: string) => {
      if (v === '' || subscribers.NewSubscriber.shape[key].safeParse(v).success) return v;
      const issue = subscribers.NewSubscriber.shape[key].safeParse(v).error!.issues[0]!;
      warnings.push(`${key}: ${issue.message}; left out`);
      return '';
    };
    first = check('first_name', first);
    last = check('last_name', last);
    phone = check('phone', phone);
  }
  const row: repo.StagedRow = { row_no: rowNo, email };
  if (zone && isTimeZone(zone)) row.time_zone = zone;
  if (warnings.length > 0) row.warnings = warnings;
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
        // the error list shows what was sent, but not a whole field of megabytes
        email: email.length > MAX_SHOWN ? `${email.slice(0, MAX_SHOWN - 1)}…` : email,
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
      if (coerced === undefined) {
        if (onBadValue === 'refuse_row') return { ...row, error: customFieldError(custom, defs) };
        (row.warnings ??= []).push(
          `${key}: ${customFieldError({ [key]: v }, defs).replace(/^custom_fields\.[^:]*: /, '')}; left out`,
        );
        continue;
      }
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
export async function stageCsv(
  db: Db,
  accountId: string,
  importId: string,
  stream: Readable,
  options?: Pick<ImportOptions, 'mapping' | 'on_bad_value'>,
): Promise<StageResult> {
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
          // one read within a slice: the parser only checks records it is still reading (csvBounds.ts)
          if (record.length > MAX_COLUMNS) return fail(tooManyColumns(header ? rowNo + 1 : 1));
          if (!header) {
            // lines of blanks before the header (a lone "\r", spaces) are not a header without an email column
            if (record.every((cell) => cell.trim() === '')) return;
            header = mapHeader(record, defs, options?.mapping);
            return;
          }
          rowNo++;
          const input = header.read(record);
          const long = oversizedField(input.custom_fields);
          chunk.push(
            long === undefined
              ? toStaged(rowNo, input, defs, options?.on_bad_value)
              : { ...toStaged(rowNo, { email: input.email }, defs), error: tooLongValue(long) },
          );
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
    if (err instanceof CsvError) throw new NotCsv(`File is not a valid CSV: ${parseProblem(err)}`);
    throw err;
  }
  if (!header) throw new NotCsv('File is not a CSV: it is empty');
  return { total_rows: rowNo - 1, end_row: rowNo, ignored_columns: header.ignored };
}

interface Header {
  ignored: string[];
  read(record: string[]): InputRow;
}

/** One header cell and what it fills: a subscriber column, a custom field (its key), or nothing (ignored). */
export interface HeaderColumn {
  index: number;
  header: string;
  column?: (typeof COLUMNS)[number];
  field?: string;
  /** the mapping said "skip": left out on purpose, not an unknown column */
  skipped?: boolean;
}

/** The mapping's target for a header: the entry written as in the file, else one in another case. */
function mappedTarget(mapping: Record<string, string> | undefined, header: string): string | undefined {
  if (!mapping) return undefined;
  if (header in mapping) return mapping[header];
  const lower = header.toLowerCase();
  for (const [k, v] of Object.entries(mapping)) if (k.trim().toLowerCase() === lower) return v;
  return undefined;
}

/**
 * The header rule, for the import and for the page that shows the mapping before one starts: names are
 * trimmed and case-insensitive (spaces and dashes read as "_"), a few aliases name the subscriber columns,
 * and any other name must be a custom field's key. Two columns for one value are a Validation on `file`.
 */
export function mapColumns(
  record: string[],
  defs: Map<string, fields.FieldType>,
  mapping?: Record<string, string>,
): HeaderColumn[] {
  const normal = (h: string) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
  const out: HeaderColumn[] = [];
  const taken = new Map<string, number>();
  record.forEach((raw, index) => {
    const name = normal(raw);
    if (name === '') return;
    const chosen = mappedTarget(mapping, raw.trim());
    if (chosen === SKIP) return void out.push({ index, header: raw.trim(), skipped: true });
    if (chosen?.startsWith('custom_fields.') && !defs.has(chosen.slice(14)))
      throw Validation.field(
        'mapping',
        `No custom field "${clip(chosen.slice(14))}": create it first, or map the column elsewhere`,
      );
    const column = chosen
      ? (COLUMNS as readonly string[]).includes(chosen)
        ? (chosen as (typeof COLUMNS)[number])
        : undefined
      : (COLUMNS as readonly string[]).includes(name)
        ? (name as (typeof COLUMNS)[number])
        : ALIASES[name];
    const field = chosen ? (column ? undefined : chosen.slice(14)) : column || !defs.has(name) ? undefined : name;
    const target = column ?? (field && `custom_fields.${field}`);
    if (!target) return void out.push({ index, header: raw.trim() });
    // two columns for one value: which one the user meant cannot be guessed
    const first = taken.get(target);
    if (first !== undefined)
      throw Validation.field(
        'file',
        `Duplicate column: "${clip(raw.trim())}" (column ${index + 1}) and "${clip(record[first]!.trim())}" (column ${first + 1}) both mean ${field ? `the custom field "${field}"` : column}; keep one of them`,
      );
    taken.set(target, index);
    out.push({ index, header: raw.trim(), column, field });
  });
  return out;
}

export const NO_EMAIL_COLUMN = 'No email column: the header row must have an "email" column';

function mapHeader(record: string[], defs: Map<string, fields.FieldType>, mapping?: Record<string, string>): Header {
  const all = mapColumns(record, defs, mapping);
  const columns = all.filter((c) => c.column || c.field);
  if (!columns.some((c) => c.column === 'email')) {
    if (record.some((h) => /[\u0000-\u0008\u000e-\u001f]/.test(h)))
      throw new NotCsv('File is not a CSV: it contains binary data');
    throw Validation.field('file', NO_EMAIL_COLUMN);
  }
  return {
    ignored: shownIgnored(all.filter((c) => !c.column && !c.field && !c.skipped).map((c) => c.header)),
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

const clip = (name: string) => (name.length > 64 ? `${name.slice(0, 63)}…` : name);

/** The ignored columns the job's message names: a few, and how many more, whatever the header's width. */
function shownIgnored(names: string[]): string[] {
  const shown = names.slice(0, SHOWN_IGNORED).map(clip);
  return names.length > SHOWN_IGNORED ? [...shown, `and ${names.length - SHOWN_IGNORED} more`] : shown;
}

const tooLongValue = (key: string) =>
  `custom_fields.${key}: must be at most ${MAX_FIELD.toLocaleString('en')} characters`;

/** A parser's refusal in the user's words, with the row as a spreadsheet numbers it (the header is row 1). */
function parseProblem(err: CsvError): string {
  const row = Number(err.records ?? 0) + 1;
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `row ${row} opens a quote that is never closed (a quote inside a value must be doubled: "")`;
    case 'CSV_MAX_RECORD_SIZE':
      return tooLong(row);
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `row ${row} has text right after a closing quote (a quote inside a value must be doubled: "")`;
    default:
      return `row ${row}: ${err.message}`;
  }
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
  const text = textChecker();
  try {
    checkHead(head, done);
    text.chunk(head);
  } catch (err) {
    if (!done) await drain();
    throw err;
  }
  const parser = boundedParser({
    delimiter: sniffDelimiter(head),
    record_delimiter: recordDelimiter(head),
    ...PARSE_OPTIONS,
  });
  const stop = new AbortController();
  let stopped = false;
  const refuse = (check: () => void): boolean => {
    try {
      check();
      return false;
    } catch (err) {
      stopped = true;
      parser.destroy(err as Error);
      return true;
    }
  };
  const feed = async (buf: Buffer, checked = false) => {
    if (stopped || (!checked && refuse(() => text.chunk(buf)))) return;
    for (const slice of slices(buf)) {
      // a turn of the event loop before each slice: the upload's chunks arrive in bursts (libuv reads a
      // socket up to 32 times a turn), and parsing a burst in one go kept other requests waiting 200-400 ms
      await new Promise(setImmediate);
      if (stopped) return;
      if (!parser.write(slice)) await once(parser, 'drain', { signal: stop.signal }).catch(() => {});
    }
  };
  void (async () => {
    await feed(head, true);
    while (!done) {
      const next = await source.next();
      if (next.done) break;
      await feed(next.value);
    }
    if (!stopped && !refuse(() => text.end())) parser.end();
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

/** The candidate that occurs most often outside quoted values in the header line; comma on a tie. */
export function sniffDelimiter(head: Buffer): string {
  const end = head.indexOf(10);
  const line = head.subarray(0, end === -1 ? head.length : end).toString('utf8');
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  // a quote opens a quoted value only at a value's start, as the parser reads it; "" inside one is a quote
  let at: 'start' | 'plain' | 'quoted' | 'closed' = 'start';
  for (const ch of line) {
    if (at === 'quoted') at = ch === '"' ? 'closed' : 'quoted';
    else if (ch === '"' && at !== 'plain') at = 'quoted';
    else if (counts.has(ch)) {
      counts.set(ch, counts.get(ch)! + 1);
      at = 'start';
    } else at = 'plain';
  }
  let best: string = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}
