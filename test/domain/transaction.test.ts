// inTransaction: joins the caller's transaction, and runs a transaction PostgreSQL picked as a deadlock
// victim (or could not serialise) again as a whole; any other error is the caller's, at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { inTransaction } from '../../src/domain/transaction.ts';
import { migratedDb } from '../support/db.ts';

const { db } = await migratedDb();

const failure = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

test('a deadlock victim (40P01) or a serialisation failure (40001) runs again and commits once', async () => {
  for (const code of ['40P01', '40001']) {
    let calls = 0;
    const answer = await inTransaction(db, async (trx) => {
      calls++;
      await sql`select 1`.execute(trx);
      if (calls === 1) throw failure(code);
      return 'done';
    });
    assert.equal(answer, 'done');
    assert.equal(calls, 2, code);
  }
});

test('it gives up after three tries, and other errors are not retried', async () => {
  let calls = 0;
  await assert.rejects(
    inTransaction(db, async () => {
      calls++;
      throw failure('40P01');
    }),
    /40P01/,
  );
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(
    inTransaction(db, async () => {
      calls++;
      throw failure('23505');
    }),
    /23505/,
  );
  assert.equal(calls, 1);
});

test('a joined transaction is not retried on its own: the caller that opened it runs it again whole', async () => {
  let inner = 0;
  let outer = 0;
  await inTransaction(db, async (trx) => {
    outer++;
    await inTransaction(trx, async () => {
      inner++;
      if (outer === 1) throw failure('40P01');
    });
  });
  assert.deepEqual({ outer, inner }, { outer: 2, inner: 2 });
});
