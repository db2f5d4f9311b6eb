// What an import would do with a file's columns, before it starts: the header line read as the import
// reads it (sniffed delimiter, the parser's options) and mapped by the import's own rule (csv.mapColumns),
// with up to SAMPLE_ROWS values of each column from the lines after it, for the mapping editor.
import { CsvError } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import { storableString } from '../storable.ts';
import { parseInput } from '../validation.ts';
import { mapColumns, NO_EMAIL_COLUMN, PARSE_OPTIONS, sniffDelimiter } from './csv.ts';

export const MAX_HEADER = 64 * 1024;
export const SAMPLE_ROWS = 3;

export const HeaderInput = z.object({
  header: storableString({ error: 'header must be the first line of the file' }).max(
    MAX_HEADER,
    `header must be at most ${MAX_HEADER} characters`,
  ),
});
export type HeaderInput = z.input<typeof HeaderInput>;

export interface ColumnMapping {
  header: string;
  /** email, first_name, last_name, phone, time_zone, or custom_fields.<key> */
  maps_to: string | null;
  field: { key: string; name: string; type: fields.FieldType } | null;
  /** the column's values in the first rows after the header (shortened) */
  samples: string[];
}

export interface HeaderPreview {
  columns: ColumnMapping[];
  /** why the import would refuse this header (no email column, a duplicate), or null */
  problem: string | null;
}

export async function previewHeader(db: Db, accountId: string, input: unknown): Promise<HeaderPreview> {
  const { header } = parseInput(HeaderInput, input);
  const line = header.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = sniffDelimiter(Buffer.from(line));
  let record: string[];
  try {
    const rows = parse(line, { delimiter, ...PARSE_OPTIONS }) as string[][];
    record = rows[0] ?? [];
  } catch (err) {
    if (err instanceof CsvError) return { columns: [], problem: `The header row is not valid CSV: ${err.message}` };
    throw err;
  }
  const samples = sampleRows(header, delimiter);
  const defs = await fields.list(db, accountId);
  const byKey = new Map(defs.map((f) => [f.key, f]));
  const types = new Map(defs.map((f) => [f.key, f.type]));
  try {
    const columns = mapColumns(record, types).map((c): ColumnMapping => {
      const f = c.field === undefined ? undefined : byKey.get(c.field);
      return {
        header: c.header,
        maps_to: c.column ?? (c.field ? `custom_fields.${c.field}` : null),
        field: f ? { key: f.key, name: f.name, type: f.type } : null,
        samples: samples.map((r) => clip(r[c.index] ?? '')).filter((v) => v !== ''),
      };
    });
    const problem = columns.some((c) => c.maps_to === 'email') ? null : NO_EMAIL_COLUMN;
    return { columns, problem };
  } catch (err) {
    if (err instanceof Validation) return { columns: [], problem: err.message.replace(/^file: /, '') };
    throw err;
  }
}

/** The rows after the header in the text given (the start of the file): as many whole ones as parse. */
function sampleRows(text: string, delimiter: string): string[][] {
  const lines = text.split(/\r?\n/).slice(1, 1 + SAMPLE_ROWS * 4);
  for (let n = Math.min(lines.length, SAMPLE_ROWS); n > 0; n--) {
    try {
      const rows = parse(lines.slice(0, n).join('\n'), {
        delimiter,
        ...PARSE_OPTIONS,
        to_line: SAMPLE_ROWS,
      }) as string[][];
      return rows.slice(0, SAMPLE_ROWS);
    } catch (err) {
      if (!(err instanceof CsvError)) throw err; // a quoted value over several lines, cut: fewer samples
    }
  }
  return [];
}

const clip = (v: string) => (v.length > 60 ? `${v.slice(0, 59)}…` : v.trim());
