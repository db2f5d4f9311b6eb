// SQL for the event log and its readers' cursors: the one INSERT every state change goes through, and
// the feed's reads (committed events after a cursor, the writers still holding the table) and cursor moves.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.ts';

/** An events row as the feed hands it to a reader. */
export interface FeedEvent {
  id: string;
  seq: number;
  account_id: string;
  type: string;
  subscriber_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export async function insertEvents(
  db: Db,
  accountId: string,
  events: { type: string; subscriberId?: string | null; data: Record<string, unknown> }[],
): Promise<void> {
  await db
    .insertInto('events')
    .values(
      events.map((e) => ({
        account_id: accountId,
        type: e.type,
        subscriber_id: e.subscriberId ?? null,
        data: JSON.stringify(e.data),
      })),
    )
    .execute();
}

// ---- cursors ----

export async function cursorOf(db: Db, name: string): Promise<number | undefined> {
  return (await db.selectFrom('event_cursors').select('last_seq').where('name', '=', name).executeTakeFirst())
    ?.last_seq;
}

/** A reader added after its migration starts at the log's end rather than replaying history. */
export async function startAtEnd(db: Db, name: string): Promise<void> {
  await sql`insert into event_cursors (name, last_seq) select ${name}, coalesce(max(seq), 0) from events on conflict do nothing`.execute(
    db,
  );
}

/** Moves the cursor from `fromSeq` to `toSeq`; false when it was no longer at `fromSeq` (another instance moved it). */
export async function moveCursor(db: Db, name: string, fromSeq: number, toSeq: number): Promise<boolean> {
  const moved = await db
    .updateTable('event_cursors')
    .set({ last_seq: toSeq, updated_at: new Date() })
    .where('name', '=', name)
    .where('last_seq', '=', fromSeq)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

// ---- reads after a cursor ----

/** One row of a read: the event (only its seq when seqsOnly) and whether it is wanted. */
export type ReadRow = { seq: number; wanted: boolean } & Partial<FeedEvent>;

/** Up to `limit` events after the cursor in seq order; `wanted` (over `e`) is evaluated in the same statement. */
export async function readAfter(
  db: Db,
  cursor: number,
  limit: number,
  seqsOnly: boolean,
  wanted: RawBuilder<boolean> | undefined,
): Promise<ReadRow[]> {
  const columns = seqsOnly ? sql`e.seq` : sql`e.id, e.seq, e.account_id, e.type, e.subscriber_id, e.data, e.created_at`;
  const { rows } = await sql<ReadRow>`select ${columns}, ${wanted ?? sql`true`} as wanted from events e
    where e.seq > ${cursor} order by e.seq limit ${limit}`.execute(db);
  return rows;
}

/** How many seqs follow the cursor (up to `stride`), the last of them, and the first one wanted. */
export async function summaryAfter(db: Db, cursor: number, stride: number, wanted: RawBuilder<boolean>) {
  const { rows } = await sql<{ n: number; last: number; first_wanted: number | null }>`
    select count(*)::int as n, coalesce(max(seq), 0) as last, min(seq) filter (where wanted) as first_wanted
    from (select e.seq, ${wanted} as wanted from events e where e.seq > ${cursor} order by e.seq limit ${stride}) x`.execute(
    db,
  );
  const r = rows[0]!;
  return { n: r.n, last: Number(r.last), first_wanted: r.first_wanted === null ? null : Number(r.first_wanted) };
}

/** Transactions of other sessions holding a lock on this database's events table (PGlite: none). */
export async function eventWriters(db: Db): Promise<Set<string>> {
  const { rows } = await sql<{ v: string }>`
    select distinct virtualtransaction as v from pg_locks
     where locktype = 'relation' and granted and pid <> pg_backend_pid()
       and relation = 'events'::regclass
       and database = (select oid from pg_database where datname = current_database())`.execute(db);
  return new Set(rows.map((r) => r.v));
}

// ---- what readers want, as conditions over `e` ----

/** Events of accounts with an enabled webhook subscribed to their type (webhook fan-out's join, as sets). */
export const webhookWanted = sql<boolean>`((e.account_id, e.type) in (select w.account_id, t.type from webhooks w cross join unnest(w.events) as t(type) where w.enabled)
  or e.account_id in (select w.account_id from webhooks w where w.enabled and '*' = any(w.events)))`;

/** Events of accounts with an enabled automation (every trigger type matches events of its own account). */
export const automationWanted = sql<boolean>`(e.account_id in (select a.account_id from automations a where a.enabled))`;
