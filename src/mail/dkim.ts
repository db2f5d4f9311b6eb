// DKIM signing (RFC 6376, rsa-sha256, relaxed/relaxed) of the messages this product composes, in the SMTP
// thread. Written here rather than taken from nodemailer's or mailauth's signer because neither can
// oversign (list a header once more than it occurs, so a second From cannot be added without breaking the
// signature) and both hash through streams per message, which a campaign send pays for every recipient.
// Signatures are checked in the tests by mailauth's verifier against a DNS server of the test's own.
//
// `h=` is fixed: From twice (oversigned), then the headers receivers and unsubscribe flows rely on,
// List-Unsubscribe-Post included, without which RFC 8058 §4 tells receivers not to offer one-click. A
// listed header that a message does not carry is signed as absent, so it cannot be added later either.
import { createHash, createPrivateKey, createSign, type KeyObject } from 'node:crypto';

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PEM (PKCS#1 or PKCS#8) */
  privateKey: string;
}

export const SIGNED_HEADERS = [
  'from',
  'from',
  'to',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'reply-to',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'feedback-id',
] as const;

// parsed once per key: parsing a PEM costs more than the signature's hashing
const keyObjects = new Map<string, KeyObject>();
function keyObject(pem: string): KeyObject {
  let key = keyObjects.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    if (keyObjects.size >= 1000) keyObjects.clear();
    keyObjects.set(pem, key);
  }
  return key;
}

/** Parses the key now, so a broken one fails where it is registered rather than at its first message. */
export function loadKey(pem: string): KeyObject {
  return keyObject(pem);
}

/** RFC 6376 §3.4.2: unfold, runs of WSP → one SP, no WSP at either end of the value, name in lower case. */
function relaxedHeader(field: string): { name: string; line: string } {
  const colon = field.indexOf(':');
  const name = field.slice(0, colon).trim().toLowerCase();
  const value = field
    .slice(colon + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return { name, line: `${name}:${value}` };
}

/** RFC 6376 §3.4.4: WSP runs → one SP, none at line ends, no empty lines at the end, CRLF after the last. */
function relaxedBody(body: string): string {
  const lines = body.split('\r\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.length > 0 && (l.includes(' ') || l.includes('\t'))) lines[i] = l.replace(/[ \t]+/g, ' ').replace(/ $/, '');
  }
  while (end > 0 && lines[end - 1] === '') end--;
  return end === 0 ? '' : lines.slice(0, end).join('\r\n') + '\r\n';
}

/**
 * The message with a DKIM-Signature header in front. A string message is signed as it will be written
 * (UTF-8); a Buffer byte for byte.
 */
export function dkimSign<M extends string | Buffer>(message: M, key: DkimKey): M {
  const binary = typeof message !== 'string';
  // work on a string whose characters are the message's bytes, so offsets and hashing agree
  const text: string = binary
    ? (message as Buffer).toString('latin1')
    : /[^\x00-\x7f]/.test(message as string)
      ? Buffer.from(message as string, 'utf8').toString('latin1')
      : (message as string);
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split + 4);

  const fields = head.split(/\r\n(?![ \t])/).filter((f) => f.includes(':'));
  const byName = new Map<string, string[]>();
  for (const f of fields) {
    const h = relaxedHeader(f);
    const list = byName.get(h.name);
    if (list) list.push(h.line);
    else byName.set(h.name, [h.line]);
  }
  // each listed name takes the last instance not taken yet (bottom up); none left: signed as absent
  let signed = '';
  for (const name of SIGNED_HEADERS) {
    const instances = byName.get(name);
    const line = instances?.pop();
    if (line !== undefined) signed += line + '\r\n';
  }

  const bh = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64');
  const d = key.domainName.toLowerCase().replace(/[^a-z0-9.-]/g, '');
  const s = key.keySelector.replace(/[^A-Za-z0-9._-]/g, '');
  const t = Math.floor(Date.now() / 1000);
  const header =
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${d}; s=${s}; t=${t};\r\n` +
    ` h=${SIGNED_HEADERS.join(':')};\r\n bh=${bh};\r\n b=`;
  const signer = createSign('RSA-SHA256');
  signer.update(signed + relaxedHeader(header).line, 'latin1');
  const b = signer.sign(keyObject(key.privateKey), 'base64');
  const folded = header + b.replace(/(.{72})(?=.)/g, '$1\r\n ') + '\r\n';
  return (binary ? Buffer.concat([Buffer.from(folded, 'latin1'), message as Buffer]) : folded + message) as M;
}
