// Uploads hostile to the CSV parser, staged as the import endpoint stages them: each ends as a clear refusal
// naming its row (or a row-level error) within seconds and without holding the file in memory — a 50 MB
// quoted value, a quote never closed, a row of a million columns, 10 MB of delimiters, binary junk, UTF-16 —
// and a file just inside the bounds (20,000 columns, a 5 MB name) is read as before.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Validation } from '../../../src/domain/errors.ts';
import { MAX_COLUMNS, MAX_FIELD } from '../../../src/domain/imports/csvBounds.ts';
import * as imports from '../../../src/domain/imports/imports.ts';
import * as fields from '../../../src/domain/subscribers/fields.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();
const accountId = (await accounts.create(db, { name: 'Hostile CSV' }, 1_000_000)).id;
await fields.create(db, accountId, { key: 'notes', type: 'text' });

const MB = 1024 * 1024;

/** A file of `head`, then `fill` repeated to `size` bytes, then `tail`, streamed in 64 KB chunks as an upload is. */
function file(head: string, fill: string | Buffer, size: number, tail = ''): Readable {
  const unit = Buffer.isBuffer(fill) ? fill : Buffer.from(fill);
  const block = Buffer.alloc(64 * 1024 - ((64 * 1024) % unit.length), unit);
  return Readable.from(
    (function* () {
      yield Buffer.from(head);
      for (let sent = 0; sent < size; sent += block.length)
        yield block.subarray(0, Math.min(block.length, size - sent));
      if (tail) yield Buffer.from(tail);
    })(),
  );
}

/** Stages the stream, sampling the heap meanwhile: what it threw (or staged), how long, how much heap it took. */
async function stage(stream: Readable) {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
  const started = performance.now();
  try {
    const upload = await imports.stageFile(db, accountId, stream, 'hostile.csv');
    return { upload, ms: performance.now() - started, heapMb: (peak - base) / MB };
  } catch (err) {
    return { err, ms: performance.now() - started, heapMb: (peak - base) / MB };
  } finally {
    clearInterval(sampler);
  }
}

const random = (n: number) => {
  const b = Buffer.alloc(n);
  for (let i = 0, x = 7; i < n; i++) b[i] = x = (x * 1103515245 + 12345) & 0xff;
  return b;
};
const utf16 = (text: string, bom: boolean) =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

const REFUSED: { name: string; stream: () => Readable; error: RegExp }[] = [
  {
    name: 'a 50 MB quoted value',
    stream: () => file('email,first_name\nada@example.com,"', 'A', 50 * MB, '"\n'),
    error: /^File is not a valid CSV: row 2 is longer than 8 MB: a quote that is never closed/,
  },
  {
    name: 'a quote never closed, then 20 MB of rows',
    stream: () => file('email,first_name\n"ada@example.com,Ada\n', 'bob@example.com,Bob\n', 20 * MB),
    error: /^File is not a valid CSV: row 2 is longer than 8 MB/,
  },
  {
    name: 'a small quote never closed',
    stream: () => file('email\n"ada@example.com\n', 'x', 1000),
    error: /^File is not a valid CSV: row 2 opens a quote that is never closed/,
  },
  {
    name: 'a row of 1,000,000 columns',
    stream: () => file('email\nada@example.com', ',x', 2 * 1_000_000, '\n'),
    error: /^File is not a valid CSV: row 2 has more than 32,768 columns/,
  },
  {
    name: 'a header of 1,000,000 columns',
    stream: () => file('email', ',c', 2 * 1_000_000, '\nada@example.com\n'),
    error: /^File is not a valid CSV: row 1 has more than 32,768 columns/,
  },
  {
    name: '10 MB of delimiters',
    stream: () => file('', ',', 10 * MB),
    error: /^File is not a valid CSV: row 1 has more than 32,768 columns/,
  },
  {
    name: '10 MB of tabs after a header',
    stream: () => file('email\tname\n', '\t', 10 * MB),
    error: /^File is not a valid CSV: row 2 has more than 32,768 columns/,
  },
  {
    name: 'a first line of 9 MB without a delimiter or a line break',
    stream: () => file('', 'a', 9 * MB),
    error: /^File is not a valid CSV: row 1 is longer than 8 MB/,
  },
  {
    name: 'binary junk',
    stream: () => Readable.from([random(4 * MB)]),
    error: /^File is not (a CSV: it contains binary data|UTF-8 text)/,
  },
  {
    name: 'binary junk without a NUL byte',
    stream: () => Readable.from([Buffer.from(random(4 * MB).map((b) => b || 1))]),
    error: /^File is not UTF-8 text/,
  },
  {
    name: 'UTF-16 with its byte order mark',
    stream: () => Readable.from([utf16('email,first_name\nada@example.com,Ada\n', true)]),
    error: /^File is not a CSV: it is UTF-16 text/,
  },
  {
    name: 'UTF-16 without a byte order mark',
    stream: () => Readable.from([utf16('email,first_name\nada@example.com,Ada\n', false)]),
    error: /^File is not a CSV: it contains binary data/,
  },
];

describe('hostile CSV uploads', () => {
  for (const c of REFUSED)
    test(`${c.name}: refused with its reason, in bounded time and memory`, async (t) => {
      const r = await stage(c.stream());
      t.diagnostic(`${Math.round(r.ms)} ms, heap +${Math.round(r.heapMb)} MB`);
      assert.ok(r.err instanceof Validation, `${c.name}: ${String(r.err ?? 'staged')}`);
      assert.match(r.err.message, c.error);
      assert.deepEqual(Object.keys(r.err.fields), ['file']);
      assert.ok(r.ms < 15_000, `${c.name}: ${Math.round(r.ms)} ms`);
      assert.ok(r.heapMb < 120, `${c.name}: heap grew ${Math.round(r.heapMb)} MB`);
    });

  test('a custom value over 1 MiB is an error on its row; the rows around it are staged', async () => {
    const long = 'n'.repeat(MAX_FIELD + 1);
    const r = await stage(
      Readable.from([Buffer.from(`email,notes\nada@example.com,${long}\nbob@example.com,${'n'.repeat(MAX_FIELD)}\n`)]),
    );
    assert.ok(r.upload, String(r.err));
    const { rows } = await sql<{ row_no: number; email: string; error: string | null; notes: number | null }>`
      select x.row_no, x.email, x.error, length(x.custom_fields ->> 'notes') as notes
      from import_chunks c, jsonb_to_recordset(c.rows) as x(row_no int, email text, error text, custom_fields jsonb)
      where c.import_id = ${r.upload.importId} order by x.row_no`.execute(db);
    assert.deepEqual(rows, [
      {
        row_no: 2,
        email: 'ada@example.com',
        error: 'custom_fields.notes: must be at most 1,048,576 characters',
        notes: null,
      },
      { row_no: 3, email: 'bob@example.com', error: null, notes: MAX_FIELD },
    ]);
  });

  test(`${MAX_COLUMNS.toLocaleString('en')} columns and a 5 MB name are read as before: the wide header, the name an error on its row`, async () => {
    const header = ['email', ...Array.from({ length: MAX_COLUMNS - 1 }, (_, i) => `c${i}`)].join(',');
    const wide = await stage(Readable.from([Buffer.from(`${header}\nada@example.com\n`)]));
    assert.ok(wide.upload, String(wide.err));
    assert.equal(wide.upload.staged.total_rows, 1);
    const name = await stage(
      Readable.from([Buffer.from(`email,first_name\nada@example.com,${'A'.repeat(5 * MB)}\nbob@example.com,Bob\n`)]),
    );
    assert.ok(name.upload, String(name.err));
    assert.equal(name.upload.staged.total_rows, 2);
  });
});
