// The bounds of reading an uploaded CSV, whatever its content: the parser never holds more than one record
// of MAX_RECORD characters or MAX_COLUMNS values (plus one slice), and never works more than one slice of
// SLICE bytes before the event loop gets a turn, so a hostile file (a never-closed quote, a 50 MB value,
// a line of a million delimiters) is refused early with its row, in bounded memory, while every other
// request keeps being answered.
// - MAX_COLUMNS: twice the widest sheet a spreadsheet makes (Excel: 16,384 columns); wide exports of
//   20,000 columns still import. Checked on every record, complete or still being read.
// - MAX_RECORD: csv-parse's max_record_size, the characters of one record's values. Well above any
//   real row, so a value that is merely too long (a 5 MB name) is still refused on its own row, as
//   before; past it the file is refused, which is how a quote that is never closed ends.
// - MAX_FIELD: no value set through the REST API can be longer than its 1 MB body; a custom field value
//   read from a CSV is held to the same (the standard columns have their own, shorter limits).
import { Parser, type Options } from 'csv-parse';
import { NotCsv } from './fileCheck.ts';

export const MAX_COLUMNS = 32_768;
export const MAX_RECORD = 8 * 1024 * 1024;
export const MAX_FIELD = 1024 * 1024;
/** the most the parser reads in one go */
export const SLICE = 64 * 1024;

/** csv-parse's stream parser that also refuses a record, complete or not, of more than MAX_COLUMNS values. */
class BoundedParser extends Parser {
  override _transform(buf: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    super._transform(buf, encoding, (err?: Error | null) => callback(err ?? this.tooWide()));
  }

  private tooWide(): Error | undefined {
    // the record still being read: the parser keeps its values so far in state.record
    const reading = (this as unknown as { state: { record: unknown[] } }).state.record.length;
    return reading > MAX_COLUMNS ? tooManyColumns(Number(this.info.records) + 1) : undefined;
  }
}

export function boundedParser(options: Options): Parser {
  return new BoundedParser({ ...options, max_record_size: MAX_RECORD });
}

/** The refusal of a record of more than MAX_COLUMNS values; `row` counts from 1, the header included. */
export function tooManyColumns(row: number): NotCsv {
  return new NotCsv(`File is not a valid CSV: row ${row} has more than ${MAX_COLUMNS.toLocaleString('en')} columns`);
}

/** csv-parse's CSV_MAX_RECORD_SIZE in the user's words. */
export function tooLong(row: number): string {
  return (
    `row ${row} is longer than ${MAX_RECORD / 1024 / 1024} MB: a quote that is never closed ` +
    '(a quote inside a value must be doubled: ""), or a value far longer than any field holds'
  );
}

/** The first custom field value of a row over MAX_FIELD characters: its field's key, or undefined. */
export function oversizedField(custom: Record<string, unknown> | undefined): string | undefined {
  for (const key in custom) {
    const v = custom[key];
    if (typeof v === 'string' && v.length > MAX_FIELD) return key;
  }
  return undefined;
}

/** The buffer in slices of at most SLICE bytes, so the parser's synchronous work stays short. */
export function* slices(buf: Buffer): Generator<Buffer> {
  for (let at = 0; at < buf.length; at += SLICE) yield buf.subarray(at, at + SLICE);
}

/**
 * The file's line break, from its first line as the upload's head holds it: the first CR LF, LF or CR, as
 * csv-parse would find it; all three when the head has none (a first line over 64 KB). Given to the parser
 * rather than left to it: until the first line ends it looks for the break at every byte, making three
 * buffers each time (~2.5 µs a byte, so 20 s of work for a hostile first line of 8 MB).
 */
export function recordDelimiter(head: Buffer): string[] {
  const cr = head.indexOf(13);
  const lf = head.indexOf(10);
  if (cr === -1 && lf === -1) return ['\r\n', '\n', '\r'];
  if (cr === -1 || (lf !== -1 && lf < cr)) return ['\n'];
  return head[cr + 1] === 10 ? ['\r\n'] : ['\r'];
}
