// Reads "Authorization: Bearer <key>" and resolves the key; REST and MCP share it through http/keyGuard.ts.
// A key found once is served from the key cache (domain/accounts/keyCache.ts) until it expires, is revoked,
// or its entry ages out.
import type { Db } from '../db/client.ts';
import * as apiKeys from '../domain/accounts/apiKeys.ts';
import { cacheFor, denyEverywhere } from '../domain/accounts/keyCache.ts';

export type { KeyContext, AuthFailure } from '../domain/accounts/apiKeys.ts';

export const AUTH_MESSAGES: Record<apiKeys.AuthFailure, string> = {
  missing: 'Missing Authorization header',
  malformed: 'Authorization header must be in the form: Bearer <API_KEY>',
  unknown: 'Invalid API key',
  revoked: 'API key has been revoked',
  expired: 'API key has expired',
};

export function bearerToken(header: string | undefined): string | apiKeys.AuthFailure {
  if (header === undefined || header.trim() === '') return 'missing';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : 'malformed';
}

const lastTouch = new Map<string, number>();

export async function authenticateHeader(
  db: Db,
  header: string | undefined,
): Promise<apiKeys.KeyContext | apiKeys.AuthFailure> {
  const token = bearerToken(header);
  if (token === 'missing' || token === 'malformed') return token;
  if (!apiKeys.KEY_PATTERN.test(token)) return 'unknown';
  const cache = cacheFor(db);
  const hash = apiKeys.hashKey(token);
  const hit = cache.lookup(hash);
  if (hit === 'expired') return hit;
  if (hit) {
    const now = Date.now();
    if (now - (lastTouch.get(hit.keyId) ?? 0) > apiKeys.TOUCH_EVERY_MS) {
      lastTouch.set(hit.keyId, now);
      apiKeys.touch(db, hit.keyId);
    }
    return hit;
  }
  const found = await apiKeys.resolve(db, token);
  if (typeof found === 'string') return found;
  cache.store(hash, found.ctx, found.expiresAt);
  lastTouch.set(found.ctx.keyId, Date.now());
  return found.ctx;
}

/** A key found revoked after the cache served it (the rate-limit statement reads it): not served again. */
export function forgetRevokedKey(keyId: string): void {
  denyEverywhere(keyId);
}
