// SQL for the groups table: one function per query, accountId always. Each group's subscriber_count and
// active_count come from the counts the database keeps per group and status (countQueries.ts), so a page
// of groups costs one small aggregate instead of counting every membership of every group on it.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import * as counts from './countQueries.ts';
import { likePattern } from '../likePattern.ts';
import { offsetOf, type Paging } from '../paging.ts';

const COLUMNS = ['groups.id', 'groups.name', 'groups.created_at', 'groups.updated_at'] as const;

/** Rows of groups with their members counted (all statuses, and the active ones). */
async function withCounts<R extends { id: string }>(db: Db, accountId: string, rows: R[]) {
  const found = await counts.ofGroups(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, ...(found.get(r.id) ?? { subscriber_count: 0, active_count: 0 }) }));
}

export async function findWithCounts(db: Db, accountId: string, id: string) {
  const row = await db
    .selectFrom('groups')
    .select(COLUMNS)
    .where('groups.account_id', '=', accountId)
    .where('groups.id', '=', id)
    .executeTakeFirst();
  return row && (await withCounts(db, accountId, [row]))[0];
}

export function findById(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function names(db: Db, accountId: string, ids: string[]) {
  return db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

/** Group ids of this account among `ids`; callers compare to find foreign or missing ones. */
export async function existingIds(db: Db, accountId: string, ids: string[]): Promise<Set<string>> {
  return new Set((await existingNames(db, accountId, ids)).keys());
}

/** existingIds, with each group's name. */
export async function existingNames(db: Db, accountId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  return new Map((await names(db, accountId, ids)).map((r) => [r.id, r.name]));
}

export interface ListInput extends Paging {
  search?: string;
}

function filtered(db: Db, accountId: string, search: string | undefined) {
  return db
    .selectFrom('groups')
    .where('groups.account_id', '=', accountId)
    .$if(!!search, (qb) => qb.where((eb) => eb(eb.fn('lower', ['groups.name']), 'like', likePattern(search!))));
}

export async function listWithCounts(db: Db, accountId: string, q: ListInput) {
  const rows = await filtered(db, accountId, q.search)
    .select(COLUMNS)
    .orderBy((eb) => eb.fn('lower', ['groups.name']))
    .orderBy('groups.id')
    .limit(q.per_page)
    .offset(offsetOf(q))
    .execute();
  return withCounts(db, accountId, rows);
}

export async function countMatching(db: Db, accountId: string, search: string | undefined): Promise<number> {
  const row = await filtered(db, accountId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** undefined = the unique index (account_id, lower(name)) refused a duplicate name */
export function insert(db: Db, accountId: string, name: string) {
  return db
    .insertInto('groups')
    .values({ account_id: accountId, name })
    .onConflict((oc) => oc.expression(sql`account_id, lower(name)`).doNothing())
    .returning(['id', 'name', 'created_at', 'updated_at'])
    .executeTakeFirst();
}

/** Another group of the account already called `name` (case-insensitively)? */
export async function nameTaken(db: Db, accountId: string, name: string, exceptId: string): Promise<boolean> {
  const row = await db
    .selectFrom('groups')
    .select('id')
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

export function rename(db: Db, accountId: string, id: string, name: string) {
  return db
    .updateTable('groups')
    .set({ name, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(['id'])
    .executeTakeFirst();
}

/** Memberships go with the row (ON DELETE CASCADE). */
export function remove(db: Db, accountId: string, id: string) {
  return db
    .deleteFrom('groups')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(['id', 'name'])
    .executeTakeFirst();
}

/** Locks the group row: concurrent renames and assignments to one group serialise on it. */
export function lock(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function isMember(db: Db, accountId: string, groupId: string, subscriberId: string): Promise<boolean> {
  const row = await db
    .selectFrom('subscriber_groups')
    .select('group_id')
    .where('account_id', '=', accountId)
    .where('group_id', '=', groupId)
    .where('subscriber_id', '=', subscriberId)
    .executeTakeFirst();
  return row !== undefined;
}
