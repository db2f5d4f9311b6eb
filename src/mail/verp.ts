// VERP addresses: the envelope sender (return path) of each message we send, and the per-recipient
// mailto unsubscribe target, as `<purpose>+<token>@<return-path domain>`. The token names the one email it
// belongs to — a campaign's ledger row (campaign_recipients.id, which names the account, campaign and
// recipient), an automation email (automation_emails.id), a test send (the account) or a form confirmation
// (the signup) — and is signed with MAILGROVE_SECRET, so a report that arrives at it is tied to exactly
// that email and nobody can make one for another recipient.
//
// Why this shape: a local part may have 64 characters (RFC 5321 §4.5.3.1.1), too few for three UUIDs, so
// the token names the ledger row that already holds them. Base32 (RFC 4648, lower case, no padding)
// because mail systems may change the case of a local part; the first byte says what the id is, and 10
// bytes of HMAC-SHA256 (80 bits) make guessing hopeless. A bounce token never works as an unsubscribe
// token: the purpose is part of what is signed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { bytesUuid, uuidBytes } from './signedToken.ts';

export type VerpPurpose = 'bounce' | 'unsubscribe';

export type VerpTarget =
  | { kind: 'campaign'; rowId: number }
  | { kind: 'automation'; emailId: string }
  | { kind: 'test'; accountId: string }
  | { kind: 'confirmation'; signupId: string };

const VERSION = 1;
const KIND_CODE = { campaign: 1, automation: 2, test: 3, confirmation: 4 } as const;
const SIG_BYTES = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** the longest local part this module makes: "unsubscribe+" and an automation token, 56 characters */
export const MAX_LOCAL_PART = 64;

function mac(secret: string, purpose: VerpPurpose, payload: Buffer): Buffer {
  return createHmac('sha256', secret)
    .update('verp:' + purpose + ':')
    .update(payload)
    .digest()
    .subarray(0, SIG_BYTES);
}

function payloadOf(t: VerpTarget): Buffer {
  const head = Buffer.from([(VERSION << 4) | KIND_CODE[t.kind]]);
  if (t.kind === 'campaign') {
    const id = Buffer.alloc(8);
    id.writeBigUInt64BE(BigInt(t.rowId));
    return Buffer.concat([head, id]);
  }
  const uuid = t.kind === 'automation' ? t.emailId : t.kind === 'test' ? t.accountId : t.signupId;
  return Buffer.concat([head, uuidBytes(uuid)]);
}

export function verpToken(secret: string, purpose: VerpPurpose, target: VerpTarget): string {
  const payload = payloadOf(target);
  return base32(Buffer.concat([payload, mac(secret, purpose, payload)]));
}

/** The email the token names, or undefined when it is malformed, forged, or made for the other purpose. */
export function readVerpToken(secret: string, purpose: VerpPurpose, token: string): VerpTarget | undefined {
  const raw = unbase32(token);
  if (!raw || (raw.length !== 9 + SIG_BYTES && raw.length !== 17 + SIG_BYTES)) return undefined;
  const payload = raw.subarray(0, raw.length - SIG_BYTES);
  if (!timingSafeEqual(raw.subarray(raw.length - SIG_BYTES), mac(secret, purpose, payload))) return undefined;
  if (payload[0]! >> 4 !== VERSION) return undefined;
  const kind = payload[0]! & 0x0f;
  if (kind === KIND_CODE.campaign && payload.length === 9) {
    const id = payload.readBigUInt64BE(1);
    return id <= BigInt(Number.MAX_SAFE_INTEGER) ? { kind: 'campaign', rowId: Number(id) } : undefined;
  }
  if (payload.length !== 17) return undefined;
  const uuid = bytesUuid(payload.subarray(1));
  if (kind === KIND_CODE.automation) return { kind: 'automation', emailId: uuid };
  if (kind === KIND_CODE.test) return { kind: 'test', accountId: uuid };
  if (kind === KIND_CODE.confirmation) return { kind: 'confirmation', signupId: uuid };
  return undefined;
}

/** `bounce+<token>@<domain>` or `unsubscribe+<token>@<domain>`. */
export function verpAddress(secret: string, purpose: VerpPurpose, target: VerpTarget, domain: string): string {
  return `${purpose}+${verpToken(secret, purpose, target)}@${domain.toLowerCase()}`;
}

export type ReadAddress =
  | { purpose: VerpPurpose; target: VerpTarget }
  /** one of our VERP local parts whose token does not verify: forged, truncated or damaged */
  | { purpose: VerpPurpose; invalid: string }
  /** not one of our VERP addresses at all */
  | undefined;

/** What an envelope recipient is: a VERP address of ours (verified or not), or undefined. */
export function readVerpAddress(secret: string, address: string): ReadAddress {
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const plus = local.indexOf('+');
  if (plus < 0) return undefined;
  const purpose = local.slice(0, plus);
  if (purpose !== 'bounce' && purpose !== 'unsubscribe') return undefined;
  const token = local.slice(plus + 1);
  const target = readVerpToken(secret, purpose, token);
  return target ? { purpose, target } : { purpose, invalid: 'the token does not verify (forged or damaged)' };
}

function base32(b: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of b) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(s: string): Buffer | undefined {
  if (s.length === 0 || s.length > 60) return undefined;
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of s.toLowerCase()) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  // leftover bits must be zero padding, so each id has exactly one spelling
  if (value !== 0) return undefined;
  return Buffer.from(bytes);
}
