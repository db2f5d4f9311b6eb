// What an import would do with a file's columns, before it starts: the header line read as the import
// reads it (sniffed delimiter, the parser's options) and mapped by the import's own rule (csv.mapColumns).
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

export const HeaderInput = z.object({
  header: storableString({ error: 'header must be the first line of the file' }).max(
    MAX_HEADER,
    `header must be at most ${MAX_HEADER} characters`,
  ),
});
export type HeaderInput = z.input<typeof HeaderInput>;

export interface ColumnMapping {
  header: string;
  /** email, first_name, last_name, phone, or custom_fields.<key> */
  maps_to: string | null;
  field: { key: string; name: string; type: fields.FieldType } | null;
}

export interface HeaderPreview {
  columns: ColumnMapping[];
  /** why the import would refuse this header (no email column, a duplicate), or null */
  problem: string | null;
}

export async function previewHeader(db: Db, accountId: string, input: HeaderInput): Promise<HeaderPreview> {
  const { header } = parseInput(HeaderInput, input);
  const line = header.split(/\r?\n/, 1)[0] ?? '';
  let record: string[];
  try {
    const rows = parse(line, { delimiter: sniffDelimiter(Buffer.from(line)), ...PARSE_OPTIONS }) as string[][];
    record = rows[0] ?? [];
  } catch (err) {
    if (err instanceof CsvError) return { columns: [], problem: `The header row is not valid CSV: ${err.message}` };
    throw err;
  }
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
      };
    });
    const problem = columns.some((c) => c.maps_to === 'email') ? null : NO_EMAIL_COLUMN;
    return { columns, problem };
  } catch (err) {
    if (err instanceof Validation) return { columns: [], problem: err.message.replace(/^file: /, '') };
    throw err;
  }
}
