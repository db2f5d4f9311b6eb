// One way to open a transaction in the domain: join the caller's, or open one. A use case that spans
// contexts (a form sign-up writes a subscriber, its groups and the form's event) passes its transaction
// down and commits once; a function called on its own still gets its own transaction.
import type { Db } from '../db/client.ts';

export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
