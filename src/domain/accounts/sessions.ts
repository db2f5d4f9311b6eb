// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256 (sessions table).
// A session names one user and the account they are working in. resolve() joins memberships on every
// request, so a removed member or a changed role takes effect at once, like a revoked API key.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { roleIn } from './queries.ts';
import * as repo from './sessionQueries.ts';
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

export async function start(
  db: Db,
  userId: string,
  accountId: string,
  ttlMs: number,
): Promise<{ token: string; expires_at: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expires_at = new Date(Date.now() + ttlMs);
  await repo.insert(db, { token_hash: hashToken(token), user_id: userId, account_id: accountId, expires_at });
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

/** Drops expired rows; called now and then at sign-in so the table does not grow without bound. */
export async function purgeExpired(db: Db): Promise<void> {
  await repo.deleteExpired(db);
}
