// The statements every account-owned resource shares — one row by id, a page newest first by
// (created_at, id), the count, a delete — written once for the tables that have account_id, id and
// created_at. Each context's queries.ts names its table and columns and keeps what is its own.
import type { Kysely, Selectable } from 'kysely';
import type { Db } from './client.ts';
import type { DB } from './schema.ts';

/** The tables a row of which belongs to one account and is named by its id. */
export type OwnedTable = {
  [T in keyof DB]: DB[T] extends { account_id: unknown; id: unknown; created_at: unknown } ? T : never;
}[keyof DB];

type OwnedRow = { account_id: string; id: string; created_at: Date };

/**
 * Kysely cannot prove that a column exists on a table given as a type parameter, so the statements
 * are built on a view of the database where every table has the three columns, and their rows are
 * typed back as the real table's.
 */
function asOwned(db: Db) {
  return db as unknown as Kysely<{ owned: OwnedRow }>;
}

export function ownedRows<T extends OwnedTable, C extends keyof Selectable<DB[T]> & string>(
  table: T,
  columns: readonly C[] | '*' = '*',
) {
  // without columns C is every column, so Row is the whole row
  type Row = Pick<Selectable<DB[T]>, C>;
  const name = table as unknown as 'owned';
  const select = (db: Db) => {
    const from = asOwned(db).selectFrom(name);
    return columns === '*' ? from.selectAll() : from.select(columns as unknown as (keyof OwnedRow)[]);
  };
  return {
    find(db: Db, accountId: string, id: string): Promise<Row | undefined> {
      return select(db).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst() as Promise<
        Row | undefined
      >;
    },
    /** Newest first; (created_at, id) so rows made in the same instant keep one order across pages. */
    page(db: Db, accountId: string, limit: number, offset: number): Promise<Row[]> {
      return select(db)
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute() as Promise<Row[]>;
    },
    async count(db: Db, accountId: string): Promise<number> {
      const { n } = await asOwned(db)
        .selectFrom(name)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(n);
    },
    /** The deleted row's id, or undefined when the account has no such row. */
    remove(db: Db, accountId: string, id: string): Promise<{ id: string } | undefined> {
      return asOwned(db)
        .deleteFrom(name)
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
    },
  };
}
