// SQL for custom-field definitions (the fields table) and the values subscribers hold for them:
// one function per query, accountId always.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { FieldsTable } from '../../db/schema.ts';

const COLUMNS = ['id', 'key', 'name', 'type', 'created_at'] as const;

export function list(db: Db, accountId: string) {
  return db.selectFrom('fields').select(COLUMNS).where('account_id', '=', accountId).orderBy('key').execute();
}

/** undefined = the key is taken */
export function insert(db: Db, accountId: string, field: Pick<FieldsTable, 'key' | 'name' | 'type'>) {
  return db
    .insertInto('fields')
    .values({ account_id: accountId, ...field })
    .onConflict((oc) => oc.doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
}

export function rename(db: Db, accountId: string, id: string, name: string) {
  return db
    .updateTable('fields')
    .set({ name })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export function remove(db: Db, accountId: string, id: string) {
  return db
    .deleteFrom('fields')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning('key')
    .executeTakeFirst();
}

/** Removes the key from every subscriber of the account that holds a value for it. */
export async function dropValues(db: Db, accountId: string, key: string): Promise<void> {
  await db
    .updateTable('subscribers')
    .set({ custom_fields: sql<string>`custom_fields - ${key}` })
    .where('account_id', '=', accountId)
    .where(sql<boolean>`custom_fields ? ${key}`)
    .execute();
}

export function types(db: Db, accountId: string) {
  return db.selectFrom('fields').select(['key', 'type']).where('account_id', '=', accountId).execute();
}
