// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256 (sessions table).
// A session names one user and the account they are working in. resolve() joins memberships on every
// request, so a removed member or a changed role takes effect at once, like a revoked API key.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import type { Role } from './users.ts';

export interface SessionContext {
  sessionId: string;
  userId: string;
  accountId: string;
  accountName: string;
  role: Role;
  email: string;
  name: string | null;
  idpUserId: string;
}

// sliding expiry: a session in use is extended, but at most once per interval (one write, not one per request)
const TOUCH_INTERVAL_MS = 5 * 60_000;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function start(db: Db, userId: string, accountId: string, ttlMs: number): Promise<{ token: string; expires_at: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expires_at = new Date(Date.now() + ttlMs);
  await db.insertInto('sessions').values({ token_hash: hashToken(token), user_id: userId, account_id: accountId, expires_at }).execute();
  return { token, expires_at };
}

/** The session a cookie token stands for, or undefined (unknown, expired, or no longer a member). */
export async function resolve(db: Db, token: string, ttlMs: number): Promise<SessionContext | undefined> {
  if (!token) return undefined;
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (j) => j.onRef('m.user_id', '=', 's.user_id').onRef('m.account_id', '=', 's.account_id'))
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.id', 's.user_id', 's.account_id', 's.last_seen_at', 'a.name as account_name', 'm.role', 'u.email', 'u.name', 'u.idp_user_id'])
    .where('s.token_hash', '=', hashToken(token))
    .where('s.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) return undefined;
  if (Date.now() - new Date(row.last_seen_at).getTime() > TOUCH_INTERVAL_MS) {
    await db.updateTable('sessions').set({ last_seen_at: new Date(), expires_at: new Date(Date.now() + ttlMs) }).where('id', '=', row.id).execute();
  }
  return {
    sessionId: row.id,
    userId: row.user_id,
    accountId: row.account_id,
    accountName: row.account_name,
    role: row.role,
    email: row.email,
    name: row.name,
    idpUserId: row.idp_user_id,
  };
}

/** Moves a session to another account of the same user; not a member there → NotFound, as for any unknown id. */
export async function switchAccount(db: Db, sessionId: string, userId: string, accountId: string): Promise<void> {
  const member = await db.selectFrom('memberships').select('role').where('user_id', '=', userId).where('account_id', '=', accountId).executeTakeFirst();
  if (!member) throw new NotFound('Account not found');
  await db.updateTable('sessions').set({ account_id: accountId }).where('id', '=', sessionId).execute();
}

export async function end(db: Db, token: string): Promise<void> {
  if (token) await db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
}

/** Drops expired rows; called now and then at sign-in so the table does not grow without bound. */
export async function purgeExpired(db: Db): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', new Date()).execute();
}
