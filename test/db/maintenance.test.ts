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
