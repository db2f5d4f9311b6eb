// PGlite has no autovacuum: analyzePeriodically refreshes the planner's statistics while writes happen,
// (an idle database, whose clock does not move, is left alone).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { analyzePeriodically } from '../../src/db/maintenance.ts';
import * as accounts from '../../src/domain/accounts/accounts.ts';
import { migratedDb } from '../support/db.ts';

const { db, handle } = await migratedDb();

const rowsKnown = async () =>
  (
    await sql<{ n: number }>`select reltuples::int as n from pg_class where relname = 'subscribers'
      and relnamespace = current_schema()::regnamespace`.execute(db)
  ).rows[0]!.n;

test('the statistics follow the writes', async () => {
  const acc = (await accounts.create(db, { name: 'Analysed' }, 10_000)).id;
  const stop = analyzePeriodically(db, handle.changes, 50);
  try {
    await sql`analyze subscribers`.execute(db);
    const before = await rowsKnown();
    await sql`insert into subscribers (account_id, email)
      select ${acc}::uuid, 'a' || g || '@example.com' from generate_series(1, 2000) g`.execute(db);
    handle.changes.tick(); // PostgreSQL's clock hears of writes through notifications; PGlite ticks its own
    const until = Date.now() + 5_000;
    while ((await rowsKnown()) < before + 2000 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await rowsKnown(), before + 2000);
  } finally {
    stop();
  }
});

test('search indexes: sessions keep small pending lists, an import batch the default', async () => {
  const show = async () =>
    (await sql<{ v: string }>`select current_setting('gin_pending_list_limit') as v`.execute(db)).rows[0]!.v;
  assert.equal(await show(), '128kB');
  // the batch statement sets it for its own transaction only
  await db.transaction().execute(async (trx) => {
    await sql`select set_config('gin_pending_list_limit', '4096', true)`.execute(trx);
    assert.equal(
      (await sql<{ v: string }>`select current_setting('gin_pending_list_limit') as v`.execute(trx)).rows[0]!.v,
      '4MB',
    );
  });
  assert.equal(await show(), '128kB');
});

test('PGlite creates WAL segments without zero-filling them; every store keys the event log by seq', async () => {
  if (handle.kind === 'pglite')
    assert.equal(
      (await sql<{ v: string }>`select current_setting('wal_init_zero') as v`.execute(db)).rows[0]!.v,
      'off',
    );
  const { rows } = await sql<{ def: string }>`select pg_get_indexdef(indexrelid) as def from pg_index
    where indrelid = 'events'::regclass and indisunique`.execute(db);
  // one unique index, the key: a unique index on the random id would cost every event a random btree write
  assert.deepEqual(
    rows.map((r) => r.def.replace(/^.* USING /, '')),
    ['btree (seq)'],
  );
});
