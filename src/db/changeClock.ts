// A counter of the writes a process has made to its database or heard of from other processes. A cached
// read stays valid only while the counter has not moved since the read started, so a cache built on it
// cannot serve a row older than the last write this process saw commit (db/readCache.ts).
//
// Local writes tick it after they complete, from the drivers (db/client.ts, db/pgliteDialect.ts): a
// statement that is not a plain read and changed rows, and every COMMIT. Other processes' writes tick it
// through PostgreSQL notifications (db/changeListener.ts); while that channel is down the clock is not
// `reliable` and caches step aside. PGlite has one process per data dir (the lock file), so its clock is
// reliable from the start.
import type { Kysely } from 'kysely';

// keyed by the Kysely instance; typed loosely so this module needs nothing from client.ts (no import cycle)
type Db = Kysely<any>;

export class ChangeClock {
  private count = 0;
  constructor(public reliable: boolean) {}

  get now(): number {
    return this.count;
  }

  tick(): void {
    this.count++;
  }

  setReliable(reliable: boolean): void {
    this.reliable = reliable;
    this.count++; // whatever was cached before the change of state is not trusted after it
  }

  /** Ticks when a statement that just completed may have changed data other sessions can now see. */
  noteStatement(text: string, rowCount: number | null | undefined): void {
    if (COMMIT.test(text) || (!READ_ONLY.test(text) && rowCount !== 0)) this.count++;
  }
}

const READ_ONLY = /^\s*(select|begin|rollback|show|set|listen|unlisten|savepoint|release|explain)\b/i;
// anything else may write (WITH … UPDATE, DO, several statements in one text); COMMIT publishes writes
const COMMIT = /^\s*(commit|end)\b/i;

const clocks = new WeakMap<Db, ChangeClock>();

export function registerClock(db: Db, clock: ChangeClock): void {
  clocks.set(db, clock);
}

/** The clock of a database handle's top-level Db; undefined inside a transaction (its reads are its own). */
export function changeClockOf(db: Db): ChangeClock | undefined {
  return clocks.get(db);
}
