// What other processes announce through PostgreSQL notifications besides the change clock's ticks: today
// the ids of revoked (or deleted) API keys, which every instance's key cache must drop at once
// (migration 20261126_1910_key_revocation_notify.sql). `listening` says whether such notices can arrive at
// all: while the listening connection is down (and on PGlite, where nothing listens) whoever depends on
// them falls back to reading the database.
import type { Kysely } from 'kysely';

// keyed by the Kysely instance; typed loosely so this module needs nothing from client.ts (no import cycle)
type Db = Kysely<any>;

export type Notice = { kind: 'key_revoked'; id: string } | { kind: 'listening'; up: boolean };

export class Notices {
  private up = false;
  private readonly handlers = new Set<(n: Notice) => void>();

  /** true while notices from other processes arrive */
  get listening(): boolean {
    return this.up;
  }

  /** Calls `fn` with every notice, and with every change of `listening`; returns how to stop. */
  subscribe(fn: (n: Notice) => void): () => void {
    this.handlers.add(fn);
    return () => this.handlers.delete(fn);
  }

  setListening(up: boolean): void {
    if (up === this.up) return;
    this.up = up;
    this.emit({ kind: 'listening', up });
  }

  emit(n: Notice): void {
    for (const fn of this.handlers) fn(n);
  }
}

const notices = new WeakMap<Db, Notices>();

export function registerNotices(db: Db, n: Notices): void {
  notices.set(db, n);
}

/** The notices of a database handle's top-level Db; undefined on PGlite (one process: nothing to hear). */
export function noticesOf(db: Db): Notices | undefined {
  return notices.get(db);
}
