// SQL of bulk actions and the export: one set-based statement per action over the chosen subscribers
// (ids, or every row the list's filter matches), and the export's keyset-paged reads of that filter.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { SubscriberStatus } from '../../db/schema.ts';
import { filtered, type Condition } from './queries.ts';

export interface Filter {
  status?: SubscriberStatus;
  search?: string;
  group_id?: string;
  /** another context's condition (a segment's rules), as the list takes it */
  where?: Condition;
}

/** Either explicit ids (other accounts' ids simply match nothing) or everything the list's filter matches. */
export type { Condition };

export type Selection = { ids: string[] } | { filter: Filter };

function chosen(db: Db, accountId: string, sel: Selection) {
  if ('filter' in sel) return filtered(db, accountId, sel.filter);
  // one array parameter rather than 10,000 placeholders
  return db
    .selectFrom('subscribers as s')
    .where('s.account_id', '=', accountId)
    .where((eb) => eb('s.id', '=', sql<string>`any(${sql.val(sel.ids)}::uuid[])`));
}

/** insert … select: every chosen subscriber joins the group in one statement; returns the new members. */
export async function addToGroup(db: Db, accountId: string, groupId: string, sel: Selection) {
  const target = chosen(db, accountId, sel).select(['s.id', 's.email']);
  const r = await sql<{ id: string; email: string }>`
    with target as (${target}),
    added as (
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select ${groupId}::uuid, t.id, ${accountId}::uuid from target t
      on conflict do nothing
      returning subscriber_id
    )
    select t.id, t.email from added a join target t on t.id = a.subscriber_id`.execute(db);
  return r.rows;
}

export async function removeFromGroup(db: Db, accountId: string, groupId: string, sel: Selection) {
  const target = chosen(db, accountId, sel).select(['s.id', 's.email']);
  const r = await sql<{ id: string; email: string }>`
    with target as (${target}),
    removed as (
      delete from subscriber_groups sg using target t
      where sg.account_id = ${accountId}::uuid and sg.group_id = ${groupId}::uuid and sg.subscriber_id = t.id
      returning sg.subscriber_id
    )
    select t.id, t.email from removed r join target t on t.id = r.subscriber_id`.execute(db);
  return r.rows;
}

/** Sets status unsubscribed on every chosen subscriber not already unsubscribed; returns the changed rows. */
export function unsubscribe(db: Db, accountId: string, sel: Selection) {
  const now = new Date();
  return db
    .updateTable('subscribers')
    .set({ status: 'unsubscribed', unsubscribed_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('status', '!=', 'unsubscribed')
    .where('id', 'in', chosen(db, accountId, sel).select('s.id'))
    .returningAll()
    .execute();
}

/** Memberships, notes and events go as with one subscriber (ON DELETE CASCADE and the AFTER DELETE trigger). */
export function remove(db: Db, accountId: string, sel: Selection) {
  return db
    .deleteFrom('subscribers')
    .where('account_id', '=', accountId)
    .where('id', 'in', chosen(db, accountId, sel).select('s.id'))
    .returning(['id', 'email'])
    .execute();
}

/** Where the last chunk ended: created_at as text, because a JS Date would drop its microseconds. */
export interface Cursor {
  at: string;
  id: string;
}

/** One chunk of the export, in the list's order (newest first), after `cursor`: keyset paging, no OFFSET. */
export function exportChunk(db: Db, accountId: string, filter: Filter, cursor: Cursor | undefined, size: number) {
  return filtered(db, accountId, filter)
    .select([
      's.id',
      's.email',
      's.first_name',
      's.last_name',
      's.phone',
      's.status',
      's.created_at',
      's.custom_fields',
    ])
    .select(sql<string>`s.created_at::text`.as('cursor_at'))
    .$if(cursor !== undefined, (qb) =>
      qb.where(sql<boolean>`(s.created_at, s.id) < (${cursor!.at}::timestamptz, ${cursor!.id}::uuid)`),
    )
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(size)
    .execute();
}
