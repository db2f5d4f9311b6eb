// API keys of an account: value "mailgrove_" + 32 lowercase hex, stored only as a SHA-256 hash.
// The raw value is returned once, by create. Revocation and expiry take effect on the next request:
// authenticate reads the row, and the key cache (keyCache.ts) is told by revoke.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { denyEverywhere, hearRevocation } from './keyCache.ts';
import type { KeyContext } from './keyContext.ts';
import * as keys from './keyQueries.ts';
import * as repo from './queries.ts';
import { ScopeList } from './scopes.ts';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { storableString } from '../storable.ts';
import { instant, parseInput } from '../validation.ts';

export const KEY_PREFIX = 'mailgrove_';
export const KEY_PATTERN = /^mailgrove_[0-9a-f]{32}$/;

export const NewApiKey = z.object({
  name: storableString().trim().min(1, 'Name is required').max(100),
  scopes: ScopeList,
  // in-process callers (tests, the CLI) may hand over a Date: it is held to the same rule as text
  expires_at: z
    .preprocess((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v), instant())
    .optional()
    .nullable(),
});
export type NewApiKey = z.input<typeof NewApiKey>;

export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: string[];
  hint: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export async function create(
  db: Db,
  accountId: string,
  input: unknown,
  userId?: string | null,
): Promise<ApiKeyInfo & { key: string }> {
  const parsed = parseInput(NewApiKey, input);
  // every account has an owner from its creation on: no owner means no such account
  const owner = userId ?? (await repo.firstOwner(db, accountId));
  if (!owner) throw new NotFound('Account not found');
  const key = KEY_PREFIX + randomBytes(16).toString('hex');
  const row = await keys.insert(db, {
    account_id: accountId,
    user_id: owner,
    name: parsed.name,
    scopes: parsed.scopes,
    key_hash: hashKey(key),
    hint: `${KEY_PREFIX}…${key.slice(-4)}`,
    expires_at: parsed.expires_at ?? null,
  });
  return { ...row, key };
}

export function list(db: Db, accountId: string): Promise<ApiKeyInfo[]> {
  return keys.list(db, accountId);
}

/**
 * Revokes the key. The answer waits (briefly) until this process has heard the revocation's notice from
 * the database: by then it has gone out to every instance's listener, so a client that goes on to another
 * instance finds the key refused there too.
 */
export async function revoke(db: Db, accountId: string | null, keyId: string): Promise<void> {
  const heard = hearRevocation(db, keyId);
  try {
    if (await keys.revoke(db, accountId, keyId)) {
      denyEverywhere(keyId);
      await heard.done;
    } else if (!(await keys.exists(db, accountId, keyId))) throw new NotFound('API key not found');
  } finally {
    heard.cancel();
  }
}

export type { KeyContext };

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';

export async function authenticate(db: Db, raw: string): Promise<KeyContext | AuthFailure> {
  const found = await resolve(db, raw);
  return typeof found === 'string' ? found : found.ctx;
}

/** authenticate, with the key's expiry (what a cache needs to refuse it later without asking again). */
export async function resolve(db: Db, raw: string): Promise<{ ctx: KeyContext; expiresAt: Date | null } | AuthFailure> {
  if (!KEY_PATTERN.test(raw)) return 'unknown';
  const row = await keys.byHash(db, hashKey(raw));
  if (!row) return 'unknown';
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return 'expired';
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > TOUCH_EVERY_MS) touch(db, row.id);
  const ctx = {
    keyId: row.id,
    accountId: row.account_id,
    name: row.name,
    scopes: row.scopes,
    userId: row.user_id,
    idpUserId: row.idp_user_id,
  };
  return { ctx, expiresAt: row.expires_at };
}

/** last_used_at is for people, not for audits: one write a minute per key keeps it off the hot path. */
export const TOUCH_EVERY_MS = 60_000;

/** Records that the key was used, without waiting (a failed write must not fail the request). */
export function touch(db: Db, keyId: string): void {
  keys.touch(db, keyId).catch(() => {});
}
