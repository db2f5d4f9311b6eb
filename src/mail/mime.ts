// The MIME text of one outgoing message, composed here in one pass instead of by nodemailer's MailComposer.
// Why: nodemailer builds every message as a tree of MimeNodes piped through quoted-printable and newline
// transform streams, ~190 KB of short-lived garbage per ~7 KB message; under a campaign send (1,000+ msg/s)
// that garbage is what grew the server's old generation by 100-200 MB (docs/performance.md, Sending).
// This composer allocates little more than the finished message, which the SMTP transport sends as it is
// (smtpPool.ts over nodemailer's SMTPConnection; DKIM signing in dkim.ts).
//
// Output matches what nodemailer produces for {from, to, replyTo, subject, html, text, headers, messageId}:
// header values encoded and folded by nodemailer's own functions (RFC 2047 words for non-ASCII, punycode
// domains in addresses), both bodies UTF-8 quoted-printable (RFC 2045: lines ≤ 76, soft breaks never inside
// a UTF-8 sequence, trailing whitespace encoded), text before HTML in multipart/alternative, CRLF lines.
import { randomUUID } from 'node:crypto';
import addressparser from 'nodemailer/lib/addressparser';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';

export interface MimeMessage {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  replyTo?: string;
  headers?: Record<string, string>;
  /** without angle brackets */
  messageId: string;
  date?: Date;
  /** the SMTP MAIL FROM when it is not the From address (a VERP return path) */
  envelopeFrom?: string;
}

export interface ComposedMessage {
  /** the whole message, CRLF line endings */
  raw: string;
  /** SMTP envelope: MAIL FROM and RCPT TO */
  envelope: { from: string; to: string[] };
}

// headers this composer writes itself; a caller's header of the same name makes the message take nodemailer's path
const OWN = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'sender',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
]);
// a bare address that needs neither quoting nor punycode: printed exactly as given
const PLAIN_ADDRESS = /^[A-Za-z0-9!#$%&'*+\/=?^_`{|}~.-]+@[A-Za-z0-9.-]+$/;
const PRINTABLE = /^[\x20-\x7e]*$/;
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

const encoder = new MimeNode('text/plain'); // only its stateless header encoding is used
const addressLines = new Map<string, { line: string; address: string } | null>();

/**
 * The message as MIME text plus its envelope, or undefined when it needs something this composer leaves
 * to nodemailer (a recipient with non-ASCII or quoted parts, a sender without an address, a caller header
 * that would collide with one of ours).
 */
export function composeMessage(m: MimeMessage): ComposedMessage | undefined {
  if (!PLAIN_ADDRESS.test(m.to)) return undefined;
  const from = addressHeader('From', m.from);
  if (!from) return undefined;
  const replyTo = m.replyTo ? addressHeader('Reply-To', m.replyTo) : undefined;
  if (m.replyTo && !replyTo) return undefined;
  let extra = '';
  if (m.headers) {
    for (const key in m.headers) {
      if (!FIELD_NAME.test(key) || OWN.has(key.toLowerCase())) return undefined;
      extra += headerLine(key, m.headers[key]!) + '\r\n';
    }
  }
  const date = (m.date ?? new Date()).toUTCString().replace(/GMT/, '+0000');
  let head =
    from.line +
    '\r\n' +
    (replyTo ? replyTo.line + '\r\n' : '') +
    'To: ' +
    m.to +
    '\r\n' +
    headerLine('Subject', m.subject) +
    '\r\n' +
    'Message-ID: ' +
    encoder.encodeHeaderValue('Message-ID', m.messageId) +
    '\r\n' +
    'Date: ' +
    date +
    '\r\n' +
    'MIME-Version: 1.0\r\n' +
    extra;
  const parts: string[] = [];
  if (m.text !== undefined) parts.push(bodyPart('text/plain', m.text));
  if (m.html !== undefined) parts.push(bodyPart('text/html', m.html));
  let raw: string;
  if (parts.length === 2) {
    // a boundary of its own per message: a constant one marks every message of the instance as alike to
    // filters that fingerprint structure
    const boundary = `=_mg_${randomUUID().replace(/-/g, '')}`;
    // "=_" occurs neither in quoted-printable output ("=" is always written as =3D) nor in a 7bit body
    // (bodyPart takes 7bit only when there is no "=" at all), so this boundary cannot collide with either
    raw =
      head +
      `Content-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n\r\n--${boundary}\r\n${parts[0]}\r\n--${boundary}\r\n${parts[1]}\r\n--${boundary}--\r\n`;
  } else {
    raw = head + (parts[0] ?? bodyPart('text/plain', '')) + '\r\n';
  }
  return { raw, envelope: { from: m.envelopeFrom ?? from.address, to: [m.to] } };
}

/**
 * Headers and content of one text part: 7bit when the text is plain ASCII with short lines and no "=" (as
 * nodemailer would, minus its "=" case), else UTF-8 quoted-printable. Line breaks become CRLF either way.
 */
function bodyPart(type: 'text/plain' | 'text/html', s: string): string {
  return (
    `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ` +
    (is7bit(s) ? '7bit\r\n\r\n' + crlf(s) : 'quoted-printable\r\n\r\n' + encodeQuotedPrintable(s))
  );
}

/** Printable ASCII, tabs and line breaks only, no "=", no line longer than 76. */
function is7bit(s: string): boolean {
  let col = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) col = 0;
    else if ((c < 0x20 && c !== 0x09) || c > 0x7e || c === 0x3d || ++col > 76) return false;
  }
  return true;
}

function crlf(s: string): string {
  return /\r(?!\n)|(?<!\r)\n/.test(s) ? s.replace(/\r\n|\r|\n/g, '\r\n') : s;
}

/** "Key: value" encoded (RFC 2047 when not printable ASCII) and folded at 76 like nodemailer does. */
function headerLine(key: string, value: string): string {
  const line = key + ': ' + (PRINTABLE.test(value) ? value : encoder.encodeHeaderValue(key, value));
  return line.length > 76 ? foldLines(line, 76) : line;
}

/** From / Reply-To line and its bare address, parsed once per distinct value (a campaign has one sender). */
function addressHeader(key: 'From' | 'Reply-To', value: string): { line: string; address: string } | undefined {
  const k = key + '\n' + value;
  let hit = addressLines.get(k);
  if (hit === undefined) {
    const first = addressparser(value, { flatten: true })[0] as { address?: string } | undefined;
    const address = first?.address;
    hit =
      address && PLAIN_ADDRESS.test(address)
        ? { line: foldLines(key + ': ' + encoder.encodeHeaderValue(key, value), 76), address }
        : null;
    if (addressLines.size >= 1000) addressLines.clear();
    addressLines.set(k, hit);
  }
  return hit ?? undefined;
}

const HEX = Buffer.from('0123456789ABCDEF', 'latin1');
// reused between calls (this is synchronous): the only allocation per body is the returned string
const SCRATCH_MAX = 256 * 1024;
let input = Buffer.allocUnsafe(16 * 1024);
let output = Buffer.allocUnsafe(64 * 1024);

/**
 * UTF-8 quoted-printable (RFC 2045 §6.7) with CRLF line breaks: any CR, LF or CRLF in `s` becomes a hard
 * CRLF; lines stay ≤ 76 characters with soft breaks ("=") that never split a UTF-8 sequence; "=", control
 * characters and whitespace before a line end are encoded.
 */
export function encodeQuotedPrintable(s: string): string {
  const max = s.length * 3; // UTF-8 bytes per UTF-16 unit, at most
  // each byte → at most 3 characters, plus a 3-character soft break per ≥ 63 characters of line
  const outMax = max * 4 + 16;
  // scratch buffers grow to the largest body seen, up to SCRATCH_MAX; a larger body gets its own
  if (input.length < max && max <= SCRATCH_MAX) input = Buffer.allocUnsafe(max);
  if (output.length < outMax && outMax <= 4 * SCRATCH_MAX) output = Buffer.allocUnsafe(outMax);
  const src = input.length >= max ? input : Buffer.allocUnsafe(max);
  const out = output.length >= outMax ? output : Buffer.allocUnsafe(outMax);
  const len = src.write(s, 0, 'utf8');
  let o = 0;
  let col = 0;
  let i = 0;
  while (i < len) {
    const b = src[i]!;
    if (b === 0x0d || b === 0x0a) {
      out[o++] = 0x0d;
      out[o++] = 0x0a;
      col = 0;
      i += b === 0x0d && src[i + 1] === 0x0a ? 2 : 1;
      continue;
    }
    let n = 1; // bytes taken as one unit
    let literal: boolean;
    if (b >= 0x80) {
      literal = false;
      if (b >= 0xc0) {
        const want = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
        while (n < want && i + n < len && (src[i + n]! & 0xc0) === 0x80) n++;
      }
    } else if (b === 0x20 || b === 0x09) {
      const next = src[i + 1];
      literal = i + 1 < len && next !== 0x0d && next !== 0x0a;
    } else {
      literal = b > 0x20 && b < 0x7f && b !== 0x3d;
    }
    const width = literal ? 1 : 3 * n;
    if (col + width > 75) {
      out[o++] = 0x3d;
      out[o++] = 0x0d;
      out[o++] = 0x0a;
      col = 0;
    }
    if (literal) {
      out[o++] = b;
    } else {
      for (let k = 0; k < n; k++) {
        const c = src[i + k]!;
        out[o++] = 0x3d;
        out[o++] = HEX[c >> 4]!;
        out[o++] = HEX[c & 15]!;
      }
    }
    col += width;
    i += n;
  }
  return out.toString('latin1', 0, o);
}
