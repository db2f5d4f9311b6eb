// The background workers have a connection pool of their own on PostgreSQL: requests holding every
// connection of theirs do not hold a worker's statement back. PGlite has one connection for everything.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDb } from '../../src/db/client.ts';
import { backend } from '../support/db.ts';

test(
  'a worker statement runs while requests hold every connection of theirs (PostgreSQL)',
  {
    skip: backend === 'pglite' && 'PGlite: one connection, workerDb is db',
  },
  async () => {
    const handle = await openDb({ url: process.env.TEST_DATABASE_URL, poolSize: 1, workerPoolSize: 1 });
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let inside!: () => void;
      const busy = new Promise<void>((r) => (inside = r));
      const request = handle.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        inside();
        await held;
      });
      await busy;
      const answer = await Promise.race([
        sql<{ one: number }>`select 1 as one`.execute(handle.workerDb).then((r) => r.rows[0]!.one),
        new Promise((r) => setTimeout(r, 5_000, 'waited')),
      ]);
      release();
      await request;
      assert.equal(answer, 1);
    } finally {
      await handle.close();
    }
  },
);

test('PGlite: the workers use the one connection', { skip: backend === 'postgres' && 'PostgreSQL' }, async () => {
  const handle = await openDb({});
  try {
    assert.equal(handle.workerDb, handle.db);
  } finally {
    await handle.close();
  }
});
