// SQL for dashboard sessions (the sessions table): one function per query. Sessions are found by the
// SHA-256 of their cookie token.
import type { Insertable } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { SessionsTable } from '../../db/schema/dashboard.ts';

export async function insert(db: Db, values: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(values).execute();
}

/** The unexpired session with this token hash, joined to its user, membership and account (none if any is gone). */
export function byTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.user_id', '=', 's.user_id').onRef('m.account_id', '=', 's.account_id'),
    )
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id',
      's.user_id',
      's.account_id',
      's.last_seen_at',
      'a.name as account_name',
      'm.role',
      'u.email',
      'u.name',
      'u.idp_user_id',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', new Date())
    .executeTakeFirst();
}

export async function extend(db: Db, id: string, expiresAt: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: new Date(), expires_at: expiresAt })
    .where('id', '=', id)
    .execute();
}

export async function moveToAccount(db: Db, id: string, accountId: string): Promise<void> {
  await db.updateTable('sessions').set({ account_id: accountId }).where('id', '=', id).execute();
}

export async function deleteByTokenHash(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteExpired(db: Db): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', new Date()).execute();
}

/** The user's unexpired sessions, the most recently used first. */
export function ofUser(db: Db, userId: string) {
  return db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_seen_at', 'user_agent', 'ip'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', new Date())
    .orderBy('last_seen_at', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
}

/** 0 when the session is not the user's (or gone). */
export async function deleteOfUser(db: Db, userId: string, id: string): Promise<number> {
  const r = await db.deleteFrom('sessions').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function deleteOthersOfUser(db: Db, userId: string, keepId: string): Promise<number> {
  const r = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function deleteAllOfUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}
