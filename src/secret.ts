// The HMAC secret behind tracking, unsubscribe and confirmation tokens: MAILGROVE_SECRET, or one generated
// on first start and kept in the database (so a restart or a second instance signs alike).
import { randomBytes } from 'node:crypto';
import type { Db } from './db/client.ts';

export async function resolveSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('instance_settings')
    .values({ key: 'secret', value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', 'secret')
    .executeTakeFirstOrThrow();
  return row.value;
}

// ---- secrets at rest --------------------------------------------------------------------------------------
// DKIM private keys and relay passwords are stored sealed with AES-256-GCM under a key derived from
// MAILGROVE_SECRET (or the generated secret): a copy of the database alone reveals none of them. Changing
// the secret makes the sealed values unreadable, so it is set once (docs/configuration.md).

import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

const SEALED_PREFIX = 'v1:';

function sealingKey(secret: string): Buffer {
  if (!secret) throw new Error('No secret to seal with: the instance secret is not resolved yet');
  return createHash('sha256').update(`mailgrove sealed secrets\0${secret}`).digest();
}

/** `plaintext` encrypted and authenticated under the instance secret, as text a column can hold. */
export function sealSecret(secret: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The plaintext of sealSecret's output; throws when it was sealed under another secret or altered. */
export function openSecret(secret: string, sealed: string): string {
  if (!sealed.startsWith(SEALED_PREFIX)) throw new Error('Not a sealed secret');
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
