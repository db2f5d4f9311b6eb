// What an uploaded file's bytes must be before the CSV parser sees them: UTF-8 text, and not another format
// with a .csv name. Judged by content, never by name or type. The head names what a refused file is (an
// image, a PDF, a spreadsheet, JSON), so the answer tells the user what to do; every chunk is checked as
// UTF-8, so a Latin-1 export is refused with its line instead of importing names full of U+FFFD.
import { isUtf8 } from 'node:buffer';
import { Validation } from '../errors.ts';

/** A file that is not an importable CSV: a 400 on the "file" part, worded for the user. */
export class NotCsv extends Validation {
  constructor(reason: string) {
    super({ file: [reason] }, reason);
  }
}

const SAVE_AS = '(save it as "CSV UTF-8" and upload that)';
const SIGNATURES: [bytes: number[], what: string][] = [
  [[0x89, 0x50, 0x4e, 0x47], 'it is a PNG image'],
  [[0xff, 0xd8, 0xff], 'it is a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'it is a GIF image'],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'it is a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], `it is a ZIP archive, such as an Excel (.xlsx) or OpenDocument spreadsheet ${SAVE_AS}`],
  [[0xd0, 0xcf, 0x11, 0xe0], `it is an Excel 97-2003 (.xls) spreadsheet ${SAVE_AS}`],
  [[0x1f, 0x8b], 'it is compressed (gzip)'],
  [[0xff, 0xfe], `it is UTF-16 text ${SAVE_AS}`],
  [[0xfe, 0xff], `it is UTF-16 text ${SAVE_AS}`],
];
const BOM = [0xef, 0xbb, 0xbf];
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * Throws NotCsv when the first bytes show the file is something else. `whole` says the head is the whole
 * file, so a head of nothing but blank lines is an empty file.
 */
export function checkHead(head: Buffer, whole: boolean): void {
  for (const [bytes, what] of SIGNATURES)
    if (bytes.every((b, i) => head[i] === b)) throw new NotCsv(`File is not a CSV: ${what}`);
  let i = BOM.every((b, k) => head[k] === b) ? BOM.length : 0;
  while (i < head.length && isBlank(head[i]!)) i++;
  if (i === head.length && whole) throw new NotCsv('File is not a CSV: it is empty');
  if (looksLikeJson(head, i))
    throw new NotCsv('File is not a CSV: it looks like JSON (export the list as CSV, with a header row)');
}

// "[" or "{" and then what JSON puts next; a header cell such as "[email]" is not JSON
function looksLikeJson(head: Buffer, start: number): boolean {
  const open = head[start];
  if (open !== 0x5b && open !== 0x7b) return false;
  let i = start + 1;
  while (i < head.length && isBlank(head[i]!)) i++;
  const next = head[i];
  return open === 0x7b
    ? next === 0x22 || next === 0x7d
    : next !== undefined && '{["]'.includes(String.fromCharCode(next));
}

/**
 * Checks a stream's bytes chunk by chunk: no NUL (binary files and UTF-16 text carry them, CSV text never
 * does) and valid UTF-8, a character split between two chunks checked whole. Counts lines only so that a
 * refusal can say where.
 */
export function textChecker(): { chunk(bytes: Buffer): void; end(): void } {
  let carry: Buffer | undefined;
  let line = 1;
  const notUtf8 = (at: number) =>
    new NotCsv(`File is not UTF-8 text: line ${at} has bytes that are not UTF-8 ${SAVE_AS}`);
  return {
    chunk(chunk) {
      if (chunk.includes(0)) throw new NotCsv(`File is not a CSV: it contains binary data ${SAVE_AS}`);
      const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
      const end = completeEnd(bytes);
      carry = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
      const whole = bytes.subarray(0, end);
      if (!isUtf8(whole)) throw notUtf8(line + countLines(whole.subarray(0, firstInvalid(whole))));
      line += countLines(whole);
    },
    end() {
      // a character cut off by the end of the file
      if (carry) throw notUtf8(line);
    },
  };
}

/** Where the last complete character ends: a multi-byte sequence cut by the chunk's end waits for the next. */
function completeEnd(b: Buffer): number {
  let i = b.length - 1;
  while (i >= 0 && i > b.length - 4 && (b[i]! & 0xc0) === 0x80) i--;
  if (i < 0) return b.length;
  const lead = b[i]!;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + size > b.length ? i : b.length;
}

function firstInvalid(b: Buffer): number {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    const size = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (size === 0 || !isUtf8(b.subarray(i, i + size))) return i;
    i += size;
  }
  return b.length;
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}
