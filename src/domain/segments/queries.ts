// SQL for the segments table and for reading a segment's members: one function per query, accountId always.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { DB } from '../../db/schema.ts';
import type { Filter } from '../../db/schema/segments.ts';

export type Where = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

const COLUMNS = ['id', 'name', 'filter', 'created_at', 'updated_at'] as const;

export function insert(db: Db, accountId: string, name: string, filter: Filter) {
  return db
    .insertInto('segments')
    .values({ account_id: accountId, name, filter: JSON.stringify(filter) })
    .onConflict((oc) => oc.expression(sql`account_id, lower(name)`).doNothing())
    .returning(COLUMNS)
    .executeTakeFirst(); // undefined = the name is taken
}

const segments = ownedRows('segments', COLUMNS);
export const findById = segments.find;

export function findByIds(db: Db, accountId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('segments').select(COLUMNS).where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

export const page = segments.page;

export const count = segments.count;

/** undefined = no such segment; null = the new name is taken. */
export async function update(db: Db, accountId: string, id: string, changes: { name?: string; filter?: Filter }) {
  try {
    return await db
      .updateTable('segments')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.filter !== undefined && { filter: JSON.stringify(changes.filter) }),
        updated_at: new Date(),
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return null; // segments_account_name
    throw err;
  }
}

export const remove = segments.remove;

/**
 * Members of several filters counted in one pass over the account's subscribers
 * (count(*) filter (where …) per filter), instead of one scan per segment.
 */
export async function countMatching(db: Db, accountId: string, wheres: Where[]): Promise<number[]> {
  if (wheres.length === 0) return [];
  const row = await db
    .selectFrom('subscribers')
    .select((eb) => wheres.map((w, i) => eb.fn.countAll<number>().filterWhere(w(eb)).as(`c${i}`)))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const counts = row as Record<string, number | string>;
  return wheres.map((_, i) => Number(counts[`c${i}`]));
}

/**
 * Members of one filter. Its rules are the statement's WHERE, so a rule on another table at the top of an
 * `all` filter (group, campaign_opened, campaign_clicked: an EXISTS) runs as one hash semi- or anti-join
 * over the memberships or events instead of an index probe per subscriber, as inside count(*) filter (…).
 */
export async function countOne(db: Db, accountId: string, where: Where): Promise<number> {
  const row = await db
    .selectFrom('subscribers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where(where)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function members(db: Db, accountId: string, where: Where, limit: number, offset: number) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'email', 'first_name', 'last_name', 'status', 'created_at'])
    .where('account_id', '=', accountId)
    .where(where)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}
