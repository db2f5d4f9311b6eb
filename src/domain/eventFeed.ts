// Reads the events log in seq order for one named reader (webhook fan-out, automation triggers), with a
// durable cursor in event_cursors that advances in the same transaction as the reader's own writes, so an
// event is handled once: a crash rolls both back and the next round redoes the batch.
//
// Why not simply `seq > last_seq`: seq comes from a sequence, taken when a row is inserted, but rows
// become visible when their transaction commits. A transaction holding seq 10 may commit after one
// holding seq 11 was read, and a plain cursor would then skip 10 forever. So the reader stops at the first
// missing seq and only steps over it once it is provably dead (rolled back, or deleted with its
// subscriber). The proof: an INSERT locks the events table (RowExclusiveLock) before it takes a seq and
// keeps the lock until commit, so every transaction that could still hold a missing seq was among the
// lock holders listed right after the gap was seen; once none of those is holding it any more, the row
// either is visible now or will never be. Only event writers count (not every transaction of the
// cluster, as the snapshot's xmin would), so an unrelated long transaction does not stall the feed.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';

export interface FeedEvent {
  id: string;
  seq: number;
  account_id: string;
  type: string;
  subscriber_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/** A batch the reader handles inside the cursor's transaction: events with seq in (fromSeq, toSeq]. */
export interface FeedBatch {
  events: FeedEvent[];
  fromSeq: number;
  toSeq: number;
}

interface Horizon {
  /** the highest seq visible in the round that recorded it: every smaller seq was already taken then */
  seq: number;
  /** the transactions (virtualtransaction ids) writing to events just after that round's read */
  writers: Set<string>;
}

class CursorMoved extends Error {}

export class EventFeed {
  private horizons: Horizon[] = [];

  constructor(
    readonly name: string,
    private readonly batchSize = 500,
  ) {}

  /**
   * Handles the next batch of committed events, if any, and moves the cursor past it.
   * Returns how many events were handled (0 = caught up, or waiting on a gap).
   */
  async consume(db: Db, handle: (trx: Db, batch: FeedBatch) => Promise<void>, reread = true): Promise<number> {
    // only needed while a gap is pending; taken before the read, so a writer gone by now has its row visible below
    const writersNow = this.horizons.length > 0 ? await eventWriters(db) : new Set<string>();
    const cursor = await this.cursor(db);
    const rows = await db
      .selectFrom('events')
      .select(['id', 'seq', 'account_id', 'type', 'subscriber_id', 'data', 'created_at'])
      .where('seq', '>', cursor)
      .orderBy('seq')
      .limit(this.batchSize)
      .execute();
    if (rows.length === 0) return 0;

    const settled = this.settledUpTo(writersNow);
    let expected = cursor + 1;
    const accepted: FeedEvent[] = [];
    for (const row of rows) {
      // a gap [expected, row.seq) can be stepped over only if all of it was taken before a settled round
      if (row.seq !== expected && row.seq > settled) break;
      accepted.push(row);
      expected = row.seq + 1;
    }
    if (accepted.length < rows.length) {
      const writers = await eventWriters(db);
      this.remember({ seq: rows.at(-1)!.seq, writers });
      // nobody is writing events (always so on PGlite): one more read settles the gap without a poll's wait
      if (accepted.length === 0) return writers.size === 0 && reread ? this.consume(db, handle, false) : 0;
    }

    const toSeq = accepted.at(-1)!.seq;
    try {
      await db.transaction().execute(async (trx) => {
        await handle(trx, { events: accepted, fromSeq: cursor, toSeq });
        const moved = await trx
          .updateTable('event_cursors')
          .set({ last_seq: toSeq, updated_at: new Date() })
          .where('name', '=', this.name)
          .where('last_seq', '=', cursor)
          .executeTakeFirst();
        // another instance handled this batch first: roll ours back, its writes stand
        if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved();
      });
    } catch (err) {
      if (err instanceof CursorMoved) return 0;
      throw err;
    }
    this.horizons = this.horizons.filter((h) => h.seq > toSeq);
    return accepted.length;
  }

  private async cursor(db: Db): Promise<number> {
    const row = await db.selectFrom('event_cursors').select('last_seq').where('name', '=', this.name).executeTakeFirst();
    if (row) return row.last_seq;
    // a reader added after its migration: start at the log's end rather than replaying history
    await sql`insert into event_cursors (name, last_seq) select ${this.name}, coalesce(max(seq), 0) from events on conflict do nothing`.execute(db);
    return this.cursor(db);
  }

  /** The highest seq below which every gap is dead: no writer of its round is still writing. */
  private settledUpTo(writersNow: Set<string>): number {
    let settled = 0;
    for (const h of this.horizons) if (h.seq > settled && ![...h.writers].some((w) => writersNow.has(w))) settled = h.seq;
    return settled;
  }

  private remember(h: Horizon) {
    this.horizons.push(h);
    // a long writer can keep a gap open for a while; the oldest horizons matter most, keep a few
    if (this.horizons.length > 32) this.horizons.splice(1, 1);
  }
}

/** Transactions of other sessions holding a lock on this database's events table (PGlite: none). */
async function eventWriters(db: Db): Promise<Set<string>> {
  const { rows } = await sql<{ v: string }>`
    select distinct virtualtransaction as v from pg_locks
     where locktype = 'relation' and granted and pid <> pg_backend_pid()
       and relation = 'events'::regclass
       and database = (select oid from pg_database where datname = current_database())`.execute(db);
  return new Set(rows.map((r) => r.v));
}
