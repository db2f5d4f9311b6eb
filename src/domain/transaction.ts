// One way to open a transaction in the domain: join the caller's, or open one. A use case that spans
// contexts (a form sign-up writes a subscriber, its groups and the form's event) passes its transaction
// down and commits once; a function called on its own still gets its own transaction.
//
// A transaction PostgreSQL picked as a deadlock victim (40P01) or could not serialise (40001) did
// nothing: it is run again, a few times, as PostgreSQL advises. Only the caller that opened it retries, so
// the whole use case runs again, never half of it. Transaction bodies only touch the database (mail and
// webhooks are sent outside them), so running one twice is safe.
import type { Db } from '../db/client.ts';

const RETRIED = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

export async function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !RETRIED.has(code)) throw err;
    }
  }
}
