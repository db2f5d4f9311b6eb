// Addresses an account has asked us to forget, kept only as a salted hash:
// HMAC-SHA256(config.secret, lower(trim(email))). Imports and campaign audiences check it so a forgotten
// address is not silently re-added or mailed; an explicit add through the API is still allowed.
import { createHmac } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import * as repo from './forgetQueries.ts';

export type SuppressionReason = 'forgotten';

/** The stored form of an address: the same for every spelling that compares equal (case, spaces). */
export function hashEmail(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');
}

export async function suppress(
  db: Db,
  secret: string,
  accountId: string,
  email: string,
  reason: SuppressionReason,
): Promise<void> {
  await repo.insertSuppression(db, accountId, hashEmail(secret, email), reason);
}

export async function isSuppressed(db: Db, secret: string, accountId: string, email: string): Promise<boolean> {
  return (await suppressedAmong(db, secret, accountId, [email])).size > 0;
}

/** The addresses among `emails` that are suppressed, lower-cased and trimmed (one query for a whole batch). */
export async function suppressedAmong(
  db: Db,
  secret: string,
  accountId: string,
  emails: string[],
): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const byHash = new Map(emails.map((e) => [hashEmail(secret, e), e.trim().toLowerCase()]));
  const found = await repo.suppressedHashes(db, accountId, [...byHash.keys()]);
  return new Set(found.map((h) => byHash.get(h)!));
}
