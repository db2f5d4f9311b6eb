// Password hashing for built-in dashboard sign-in: scrypt from node:crypto, a random salt per
// password, parameters stored with the hash so they can be raised later without breaking old hashes.
// verify() costs the same whether or not the user exists (the dummy hash), so timing does not reveal accounts.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// N=2^15, r=8, p=1: 32 MiB and ~100–270 ms per hash on this 2-core machine (measured; it runs on the
// libuv thread pool, not the event loop). Twice Node's default cost; sign-in is rare, guessing is not
const PARAMS = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_LENGTH = 8;

function derive(password: string, salt: Buffer, p: { N: number; r: number; p: number }): Promise<Buffer> {
  const opts: ScryptOptions = { ...p, maxmem: 256 * p.N * p.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** "scrypt$N$r$p$<salt b64>$<key b64>" */
export async function hash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

let dummy: Promise<string> | undefined;

/** True when `password` matches `stored`. With stored = null (no such user) it still does the work, then says no. */
export async function verify(password: string, stored: string | null): Promise<boolean> {
  const encoded = stored ?? (await (dummy ??= hash(randomBytes(16).toString('hex'))));
  const [scheme, n, r, p, salt, key] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
}
