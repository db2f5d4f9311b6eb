// Random tokens that stand for something (a session, an invitation, a password reset, a sign-in waiting
// for its second factor): 32 random bytes in base64url, handed out once, stored only as their SHA-256, so a
// copy of the database signs nobody in.
import { createHash, randomBytes } from 'node:crypto';
import { NotFound, StateConflict } from '../errors.ts';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/**
 * The row a mailed link stands for, while it can still be used: none, or used already → NotFound with
 * `invalid`; past its expiry → StateConflict with `expired`. The page says which, in words.
 */
export function usableLink<R extends { expires_at: Date }>(
  row: R | undefined,
  usedAt: (row: R) => Date | null,
  words: { invalid: string; expired: string },
): R {
  if (!row || usedAt(row)) throw new NotFound(words.invalid);
  if (new Date(row.expires_at).getTime() <= Date.now()) throw new StateConflict(words.expired);
  return row;
}
