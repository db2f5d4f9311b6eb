// Compact HMAC-signed tokens for links in emails (unsubscribe, open pixel, click redirect).
// A token is base64url(payload ‖ first 12 bytes of HMAC-SHA256(secret, purpose ‖ payload)): short enough
// for URLs, unforgeable without MAILGROVE_SECRET, and bound to its purpose so an open token never
// works as an unsubscribe token.
import { createHmac, timingSafeEqual } from 'node:crypto';

const SIG_BYTES = 12;

function mac(secret: string, purpose: string, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(purpose).update(payload).digest().subarray(0, SIG_BYTES);
}

export function sign(secret: string, purpose: string, payload: Buffer): string {
  return Buffer.concat([payload, mac(secret, purpose, payload)]).toString('base64url');
}

/** The payload when the token is intact and was made for this purpose; undefined otherwise. */
export function verify(secret: string, purpose: string, token: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]{16,200}$/.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  if (raw.length <= SIG_BYTES) return undefined;
  const payload = raw.subarray(0, raw.length - SIG_BYTES);
  const sig = raw.subarray(raw.length - SIG_BYTES);
  return timingSafeEqual(sig, mac(secret, purpose, payload)) ? payload : undefined;
}

/** 16 bytes of a UUID string (dashes dropped). */
export function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

export function bytesUuid(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
