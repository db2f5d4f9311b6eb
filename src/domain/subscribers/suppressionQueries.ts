// SQL of the suppression list an account manages: its own entries (manual, forgotten) in `suppressions`,
// and bounced or complained subscribers read from `subscribers`, so those follow the subscriber's status.
// accountId always.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

export interface EntryRow {
  id: string;
  email: string | null;
  reason: string;
  /** set when the entry is a bounced or complained subscriber rather than a row of the list */
  subscriber_id: string | null;
  created_at: Date;
}

const STATUSES: ('bounced' | 'complained')[] = ['bounced', 'complained'];

// one ordering for the page and the export: newest first, ties by id so pages never overlap
function entries(db: Db, accountId: string) {
  const own = db
    .selectFrom('suppressions')
    .select(['id', 'email', 'reason', sql<string | null>`null::uuid`.as('subscriber_id'), 'created_at'])
    .where('account_id', '=', accountId);
  // a subscriber has no bounced_at: updated_at is when the status last changed, or later
  const statuses = db
    .selectFrom('subscribers')
    .select(['id', 'email', sql<string>`status`.as('reason'), 'id as subscriber_id', 'updated_at as created_at'])
    .where('account_id', '=', accountId)
    .where('status', 'in', STATUSES);
  return db.selectFrom(own.unionAll(statuses).as('e'));
}

export function page(db: Db, accountId: string, limit: number, offset: number): Promise<EntryRow[]> {
  return entries(db, accountId)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute() as Promise<EntryRow[]>;
}

export async function count(db: Db, accountId: string): Promise<number> {
  const r = await entries(db, accountId)
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Inserts manual entries; an address already listed (same hash) is left as it is. Returns those added. */
export async function insertManual(
  db: Db,
  accountId: string,
  rows: { email: string; email_hash: string }[],
): Promise<EntryRow[]> {
  if (rows.length === 0) return [];
  const added = await db
    .insertInto('suppressions')
    .values(rows.map((r) => ({ account_id: accountId, email: r.email, email_hash: r.email_hash, reason: 'manual' })))
    .onConflict((oc) => oc.columns(['account_id', 'email_hash']).doNothing())
    .returning(['id', 'email', 'reason', 'created_at'])
    .execute();
  return added.map((r) => ({ ...r, subscriber_id: null }));
}

/**
 * Subscribers who hold one of these (lower-cased, trimmed) addresses are checked again by the next
 * audience: the triggers of migration 20261124_0900 only list addresses written after the fact.
 */
export async function recheckHolders(db: Db, accountId: string, lowerEmails: string[]): Promise<void> {
  if (lowerEmails.length === 0) return;
  await sql`
    insert into suppression_checks (subscriber_id, account_id)
    select s.id, s.account_id from subscribers s
    where s.account_id = ${accountId}::uuid and lower(s.email) = any(${lowerEmails}::text[])
    on conflict (subscriber_id) do update set suppressed = null`.execute(db);
}

export function find(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('suppressions')
    .select(['id', 'reason'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function isStatusEntry(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('subscribers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', 'in', STATUSES)
    .executeTakeFirst();
}

/**
 * Removes an entry. Which subscribers it matched is unknown for a hash, so every subscriber marked
 * suppressed in the account is checked again by the next audience (few rows: only marked ones).
 */
export async function remove(db: Db, accountId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('suppressions')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) return false;
  await db
    .updateTable('suppression_checks')
    .set({ suppressed: null })
    .where('account_id', '=', accountId)
    .where('suppressed', '=', true)
    .execute();
  return true;
}
