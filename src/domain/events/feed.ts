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
//
// Readers whose handler works on the seq range in SQL (webhook fan-out, automation triggers) read only the
// seqs, and name the events they care about (`wanted`): a run of events nobody consumes — an import's
// 100,000 subscriber.created in an account without webhooks — is stepped over in long strides by moving
// the cursor alone, without the handler and without reading `data`. Whether an event is wanted is decided
// in the same statement (one snapshot) that sees it committed, so a consumer that was already there when
// the event became visible is never passed over; gap handling is the same for every event, wanted or not.
import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/client.ts';
import { inTransaction } from '../transaction.ts';
import * as repo from './queries.ts';
import type { FeedEvent, ReadRow } from './queries.ts';

export type { FeedEvent };
export { automationWanted, webhookWanted } from './queries.ts';

/** A batch the reader handles inside the cursor's transaction: events with seq in (fromSeq, toSeq]. */
export interface FeedBatch {
  /** the events of the batch, in seq order (empty for a seqsOnly reader) */
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

export interface FeedOptions {
  /**
   * The handler reads the events itself, by seq range (`FeedBatch.fromSeq/toSeq`): the feed reads only
   * seqs and `FeedBatch.events` is empty.
   */
  seqsOnly?: boolean;
  /**
   * A condition over `e` (an events row) saying whether the handler has anything to do for it, such as
   * "its account has an enabled webhook for its type". Runs of events for which it is false are stepped
   * over, up to `skipStride` at a time, without calling the handler. It must not miss an event the
   * handler would act on (a false positive only costs a handler call).
   */
  wanted?: RawBuilder<boolean>;
  /** how many seqs one round reads when `wanted` is given (default 10 × batchSize) */
  skipStride?: number;
}

export class EventFeed {
  private horizons: Horizon[] = [];

  constructor(
    readonly name: string,
    private readonly batchSize = 500,
    private readonly options: FeedOptions = {},
  ) {}

  /**
   * Handles the next batch of committed events, if any, and moves the cursor past it.
   * Returns how many events the cursor moved past, handled or stepped over; 0 = caught up (which includes
   * having just stepped over every event up to the end of the log), or waiting on a gap.
   */
  async consume(db: Db, handle: (trx: Db, batch: FeedBatch) => Promise<void>, reread = true): Promise<number> {
    // only needed while a gap is pending; taken before the read, so a writer gone by now has its row visible below
    const writersNow = this.horizons.length > 0 ? await repo.eventWriters(db) : new Set<string>();
    const cursor = await this.cursor(db);
    const { seqsOnly = false, wanted } = this.options;
    if (wanted) {
      // the common case in one row: the next seqs are all there (no gap) and the first of them anybody wants,
      // if any, is known — the run before it is stepped over without reading it row by row
      const s = await repo.summaryAfter(db, cursor, this.stride(), wanted);
      if (s.n === 0) return 0;
      const noGap = s.last - cursor === s.n;
      if (noGap && s.first_wanted === null) {
        const moved = await this.skip(db, cursor, s.last, s.n);
        // stepped over everything there is: caught up, so the caller's loop may sleep (an import's events
        // arrive a batch at a time; checking again after each one costs more than it saves)
        return s.n < this.stride() ? 0 : moved;
      }
      if (noGap && s.first_wanted! > cursor + 1)
        return this.skip(db, cursor, s.first_wanted! - 1, s.first_wanted! - 1 - cursor);
    }
    const rows = await repo.readAfter(db, cursor, wanted ? this.stride() : this.batchSize, seqsOnly, wanted);
    if (rows.length === 0) return 0;

    const settled = this.settledUpTo(writersNow);
    let expected = cursor + 1;
    const accepted: ReadRow[] = [];
    for (const row of rows) {
      // a gap [expected, row.seq) can be stepped over only if all of it was taken before a settled round
      if (row.seq !== expected && row.seq > settled) break;
      accepted.push(row);
      expected = row.seq + 1;
    }
    if (accepted.length < rows.length) {
      const writers = await repo.eventWriters(db);
      this.remember({ seq: rows.at(-1)!.seq, writers });
      // nobody is writing events (always so on PGlite): one more read settles the gap without a poll's wait
      if (accepted.length === 0) return writers.size === 0 && reread ? this.consume(db, handle, false) : 0;
    }

    if (wanted) {
      // a leading run that nobody wants: move the cursor past it, nothing else to do
      const first = accepted.findIndex((r) => r.wanted);
      if (first !== 0) {
        const run = first === -1 ? accepted : accepted.slice(0, first);
        return this.skip(db, cursor, run.at(-1)!.seq, run.length);
      }
      accepted.splice(this.batchSize);
    }
    const toSeq = accepted.at(-1)!.seq;
    try {
      await inTransaction(db, async (trx) => {
        const events = seqsOnly ? [] : accepted.map(({ wanted: _, ...e }) => e as FeedEvent);
        await handle(trx, { events, fromSeq: cursor, toSeq });
        // another instance handled this batch first: roll ours back, its writes stand
        if (!(await repo.moveCursor(trx, this.name, cursor, toSeq))) throw new CursorMoved();
      });
    } catch (err) {
      if (err instanceof CursorMoved) return 0;
      throw err;
    }
    this.horizons = this.horizons.filter((h) => h.seq > toSeq);
    return accepted.length;
  }

  private stride(): number {
    return this.options.skipStride ?? this.batchSize * 10;
  }

  /** Moves the cursor past `count` events nobody wants, up to toSeq, if it is still where this round read it. */
  private async skip(db: Db, cursor: number, toSeq: number, count: number): Promise<number> {
    if (!(await repo.moveCursor(db, this.name, cursor, toSeq))) return 0; // another instance moved it first
    this.horizons = this.horizons.filter((h) => h.seq > toSeq);
    return count;
  }

  private async cursor(db: Db): Promise<number> {
    const lastSeq = await repo.cursorOf(db, this.name);
    if (lastSeq !== undefined) return lastSeq;
    await repo.startAtEnd(db, this.name);
    return this.cursor(db);
  }

  /** The highest seq below which every gap is dead: no writer of its round is still writing. */
  private settledUpTo(writersNow: Set<string>): number {
    let settled = 0;
    for (const h of this.horizons)
      if (h.seq > settled && ![...h.writers].some((w) => writersNow.has(w))) settled = h.seq;
    return settled;
  }

  private remember(h: Horizon) {
    this.horizons.push(h);
    // a long writer can keep a gap open for a while; the oldest horizons matter most, keep a few
    if (this.horizons.length > 32) this.horizons.splice(1, 1);
  }
}
