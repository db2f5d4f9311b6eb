// The subscribers export: CSV of everything the list's filter matches, read from the database in
// keyset-paged chunks and handed out as it is read, so a million rows never sit in memory at once.
// Columns: email, first_name, last_name, phone, status, created_at, then one per custom field, by key.
import type { Db } from '../../db/client.ts';
import * as repo from './bulkQueries.ts';
import { Filter, filterOf } from './bulk.ts';
import * as fields from './fields.ts';
import { csvCell } from '../csv.ts';
import { parseInput } from '../validation.ts';

const CHUNK = 2_000;
const BUILT_IN = ['email', 'first_name', 'last_name', 'phone', 'status', 'created_at'] as const;

/**
 * Validates the filter before the first byte, so a bad one is a 400 and not a broken download, and
 * returns the CSV as an async iterable of text chunks (the header line first).
 */
export async function exportCsv(
  db: Db,
  accountId: string,
  query: unknown,
  options: { where?: repo.Condition } = {},
): Promise<AsyncIterable<string>> {
  const filter = { ...filterOf(parseInput(Filter, query)), where: options.where };
  const keys = (await fields.list(db, accountId)).map((f) => f.key);
  return chunks(db, accountId, filter, keys);
}

async function* chunks(db: Db, accountId: string, filter: repo.Filter, keys: string[]): AsyncGenerator<string> {
  yield line([...BUILT_IN, ...keys]);
  let cursor: repo.Cursor | undefined;
  for (;;) {
    const rows = await repo.exportChunk(db, accountId, filter, cursor, CHUNK);
    if (rows.length === 0) return;
    let text = '';
    for (const r of rows) {
      const custom = r.custom_fields ?? {};
      text += line([
        r.email,
        r.first_name,
        r.last_name,
        r.phone,
        r.status,
        r.created_at.toISOString(),
        ...keys.map((k) => custom[k]),
      ]);
    }
    yield text;
    if (rows.length < CHUNK) return;
    const last = rows[rows.length - 1]!;
    cursor = { at: last.cursor_at, id: last.id };
  }
}

function line(values: unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}
