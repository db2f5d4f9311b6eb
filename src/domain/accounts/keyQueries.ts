// SQL for API keys (the api_keys table): one function per query. Keys are found by the SHA-256 of their
// value; a null accountId is the operator's view across accounts (admin API, CLI).
import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ApiKeysTable } from '../../db/schema.ts';

const INFO_COLUMNS = [
  'id',
  'name',
  'scopes',
  'hint',
  'expires_at',
  'revoked_at',
  'last_used_at',
  'created_at',
] as const;

export function insert(db: Db, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returning(INFO_COLUMNS).executeTakeFirstOrThrow();
}

export function list(db: Db, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select(INFO_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Whether this call revoked the key (false: unknown, another account's, or revoked already). */
export async function revoke(db: Db, accountId: string | null, keyId: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId!))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function exists(db: Db, accountId: string | null, keyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId!))
    .executeTakeFirst();
  return row !== undefined;
}

/** The key with this hash and its user's identity, whatever its state (the caller judges revoked and expired). */
export function byHash(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id') // every key has a user (user_id is not null)
    .select([
      'k.id',
      'k.account_id',
      'k.name',
      'k.scopes',
      'k.user_id',
      'k.revoked_at',
      'k.expires_at',
      'k.last_used_at',
      'u.idp_user_id',
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function touch(db: Db, keyId: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', keyId).execute();
}

/**
 * Keys revoked in the last five minutes. A window rather than "since the last poll": revoked_at is
 * written with the revoking instance's clock.
 */
export async function recentlyRevoked(db: Db): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id from api_keys where revoked_at > now() - interval '5 minutes'`.execute(db);
  return rows.map((r) => r.id);
}
