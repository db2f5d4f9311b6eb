// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256 (sessions table).
// A session names one user and the account they are working in. resolve() joins memberships on every
// request, so a removed member or a changed role takes effect at once, like a revoked API key.
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { roleIn } from './queries.ts';
import * as repo from './sessionQueries.ts';
import { hashToken, newToken } from './tokens.ts';
import { describeClient } from './userAgent.ts';
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

/** Who opened a session, as the list of sessions shows it. */
export interface ClientInfo {
  userAgent?: string | null;
  ip?: string | null;
}

export async function start(
  db: Db,
  userId: string,
  accountId: string,
  ttlMs: number,
  client: ClientInfo = {},
): Promise<{ token: string; expires_at: Date }> {
  const { token, hash } = newToken();
  const expires_at = new Date(Date.now() + ttlMs);
  await repo.insert(db, {
    token_hash: hash,
    user_id: userId,
    account_id: accountId,
    expires_at,
    user_agent: client.userAgent?.slice(0, 500) ?? null,
    ip: client.ip?.slice(0, 100) ?? null,
  });
  return { token, expires_at };
}

/** The session a cookie token stands for, or undefined (unknown, expired, or no longer a member). */
export async function resolve(db: Db, token: string, ttlMs: number): Promise<SessionContext | undefined> {
  if (!token) return undefined;
  const row = await repo.byTokenHash(db, hashToken(token));
  if (!row) return undefined;
  if (Date.now() - new Date(row.last_seen_at).getTime() > TOUCH_INTERVAL_MS)
    await repo.extend(db, row.id, new Date(Date.now() + ttlMs));
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
  if (!(await roleIn(db, userId, accountId))) throw new NotFound('Account not found');
  await repo.moveToAccount(db, sessionId, accountId);
}

export async function end(db: Db, token: string): Promise<void> {
  if (token) await repo.deleteByTokenHash(db, hashToken(token));
}

export interface SessionView {
  id: string;
  created_at: Date;
  last_seen_at: Date;
  client: string;
  ip: string | null;
  current: boolean;
}

/** The user's unexpired sessions (every account), the most recently used first. */
export async function listOf(db: Db, userId: string, currentId: string): Promise<SessionView[]> {
  const rows = await repo.ofUser(db, userId);
  return rows.map((r) => ({
    id: r.id,
    created_at: r.created_at,
    last_seen_at: r.last_seen_at,
    client: describeClient(r.user_agent),
    ip: r.ip,
    current: r.id === currentId,
  }));
}

/** Signs one of the user's own sessions out; someone else's id is NotFound, like an unknown one. */
export async function endOne(db: Db, userId: string, sessionId: string): Promise<void> {
  if ((await repo.deleteOfUser(db, userId, sessionId)) === 0) throw new NotFound('Session not found');
}

/** "Sign out everywhere else": every session of the user but this one; how many ended. */
export function endOthers(db: Db, userId: string, keepId: string): Promise<number> {
  return repo.deleteOthersOfUser(db, userId, keepId);
}

/** Drops expired rows; called now and then at sign-in so the table does not grow without bound. */
export async function purgeExpired(db: Db): Promise<void> {
  await repo.deleteExpired(db);
}
