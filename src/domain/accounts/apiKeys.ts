// API keys of an account: value "mailgrove_" + 32 lowercase hex, stored only as a SHA-256 hash.
// The raw value is returned once, by create. Revocation and expiry take effect on the next request:
// authenticate reads the row, and the faces' key cache (auth/keyCache.ts) is told by revoke.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { denyEverywhere } from './keyCache.ts';
import { ScopeList } from './scopes.ts';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { storableString } from '../storable.ts';
import { parseInput } from '../validation.ts';

export const KEY_PREFIX = 'mailgrove_';
export const KEY_PATTERN = /^mailgrove_[0-9a-f]{32}$/;

export const NewApiKey = z.object({
  name: storableString().trim().min(1, 'Name is required').max(100),
  scopes: ScopeList,
  expires_at: z.coerce.date().optional().nullable(),
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

const INFO_COLUMNS = ['id', 'name', 'scopes', 'hint', 'expires_at', 'revoked_at', 'last_used_at', 'created_at'] as const;

export async function create(db: Db, accountId: string, input: NewApiKey, userId?: string | null): Promise<ApiKeyInfo & { key: string }> {
  const parsed = parseInput(NewApiKey, input);
  const key = KEY_PREFIX + randomBytes(16).toString('hex');
  const row = await db
    .insertInto('api_keys')
    .values({
      account_id: accountId,
      user_id: userId ?? (await ownerOf(db, accountId)),
      name: parsed.name,
      scopes: parsed.scopes,
      key_hash: hashKey(key),
      hint: `${KEY_PREFIX}…${key.slice(-4)}`,
      expires_at: parsed.expires_at ?? null,
    })
    .returning(INFO_COLUMNS)
    .executeTakeFirstOrThrow();
  return { ...row, key };
}

async function ownerOf(db: Db, accountId: string): Promise<string | null> {
  const m = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .executeTakeFirst();
  return m?.user_id ?? null;
}

export function list(db: Db, accountId: string): Promise<ApiKeyInfo[]> {
  return db.selectFrom('api_keys').select(INFO_COLUMNS).where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();
}

export async function revoke(db: Db, accountId: string | null, keyId: string): Promise<void> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId!))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) denyEverywhere(keyId);
  else {
    const exists = await db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', keyId)
      .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId!))
      .executeTakeFirst();
    if (!exists) throw new NotFound('API key not found');
  }
}

export interface KeyContext {
  keyId: string;
  accountId: string;
  name: string;
  scopes: string[];
  userId: string | null;
  idpUserId: string | null;
}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';

export async function authenticate(db: Db, raw: string): Promise<KeyContext | AuthFailure> {
  const found = await resolve(db, raw);
  return typeof found === 'string' ? found : found.ctx;
}

/** authenticate, with the key's expiry (what a cache needs to refuse it later without asking again). */
export async function resolve(db: Db, raw: string): Promise<{ ctx: KeyContext; expiresAt: Date | null } | AuthFailure> {
  if (!KEY_PATTERN.test(raw)) return 'unknown';
  const row = await db
    .selectFrom('api_keys as k')
    .leftJoin('users as u', 'u.id', 'k.user_id')
    .select(['k.id', 'k.account_id', 'k.name', 'k.scopes', 'k.user_id', 'k.revoked_at', 'k.expires_at', 'k.last_used_at', 'u.idp_user_id'])
    .where('k.key_hash', '=', hashKey(raw))
    .executeTakeFirst();
  if (!row) return 'unknown';
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return 'expired';
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > TOUCH_EVERY_MS) touch(db, row.id);
  const ctx = { keyId: row.id, accountId: row.account_id, name: row.name, scopes: row.scopes, userId: row.user_id, idpUserId: row.idp_user_id };
  return { ctx, expiresAt: row.expires_at };
}

/** last_used_at is for people, not for audits: one write a minute per key keeps it off the hot path. */
export const TOUCH_EVERY_MS = 60_000;

/** Records that the key was used, without waiting (a failed write must not fail the request). */
export function touch(db: Db, keyId: string): void {
  db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', keyId).execute().catch(() => {});
}
