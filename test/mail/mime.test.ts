// src/mail/mime.ts, the one-pass MIME composer the SMTP transport hands to nodemailer as `raw`: every
// message must read back (mailparser) exactly as the one nodemailer composes from the same fields — subject,
// addresses, Message-ID, both parts, custom headers — with RFC 2045/5322 line rules, no header injection,
// and undefined (nodemailer's own path) for what it does not handle.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import { composeMessage, encodeQuotedPrintable, type MimeMessage } from '../../src/mail/mime.ts';

const viaNodemailer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' } as any);

async function nodemailerRaw(m: MimeMessage): Promise<Buffer> {
  const info: any = await viaNodemailer.sendMail({
    from: m.from,
    to: m.to,
    replyTo: m.replyTo,
    subject: m.subject,
    html: m.html,
    text: m.text,
    headers: m.headers,
    messageId: `<${m.messageId}>`,
  });
  return info.message as Buffer;
}

const view = (p: ParsedMail) => ({
  subject: p.subject,
  from: p.from?.value,
  to: (Array.isArray(p.to) ? p.to[0] : p.to)?.value,
  replyTo: p.replyTo?.value,
  messageId: p.messageId,
  text: p.text,
  html: p.html,
  headers: ['list-unsubscribe', 'list-unsubscribe-post', 'precedence', 'x-mailgrove-campaign', 'x-note'].map((k) =>
    p.headerLines.find((h) => h.key === k)?.line.replace(/\r\n\s+/g, ' '),
  ),
});

const LONG_URL = `<https://mail.example.com/u/${'A'.repeat(90)}>`;
const cases: [string, MimeMessage][] = [
  [
    'a campaign message',
    {
      from: 'Bench <bench@example.org>',
      to: 'bench1@example.net',
      subject: 'Spring news for Name1',
      messageId: 'a1@mail.example.com',
      text: 'Hello Name1\n\nRead more [https://x.test/t/c/abc/0]\n',
      html:
        '<html><body><h1>Hello Name1</h1>' +
        '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(5) +
        '</body></html>',
      headers: {
        'List-Unsubscribe': LONG_URL,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        Precedence: 'bulk',
        'X-Mailgrove-Campaign': '33333333-3333-4333-8333-333333333333',
      },
    },
  ],
  [
    'non-ASCII everywhere it may be: names, subject, bodies, a header',
    {
      from: 'Café Ünïcode <news@acme.test>',
      replyTo: '"Help, Desk" <help@acme.test>',
      to: 'ada@example.com',
      messageId: 'b2@acme.test',
      subject: 'Grüße – 😀 a subject long enough that RFC 2047 words have to be folded over several lines, surely',
      text: 'Grüße ✓\r\nzweite Zeile\ndritte\nend with space \nand tab\t',
      html: `<p>${'é'.repeat(120)}</p>\n<p>a=b ${'x'.repeat(200)}</p>`,
      headers: { 'X-Note': 'Notiz für dich' },
    },
  ],
  ['only HTML', { from: 'a@b.test', to: 'c@d.test', subject: 'x', messageId: 'c3@b.test', html: '<p>only html</p>' }],
  ['only text', { from: 'a@b.test', to: 'c@d.test', subject: 'x', messageId: 'd4@b.test', text: 'only text' }],
];

describe('composeMessage', () => {
  for (const [name, m] of cases) {
    test(`reads back like nodemailer's own composition: ${name}`, async () => {
      const c = composeMessage(m);
      assert.ok(c, 'composed');
      assert.deepEqual(c.envelope, { from: m.from.replace(/^.*<|>$/g, ''), to: [m.to] });
      const [ours, theirs] = [await simpleParser(c.raw), await simpleParser(await nodemailerRaw(m))];
      assert.deepEqual(view(ours), view(theirs));
      if (m.text !== undefined && m.html !== undefined) {
        // exactly the rendered bodies (a single part ends with the message's final CRLF, read as a newline)
        assert.equal(ours.text, m.text.replace(/\r\n?/g, '\n'));
        assert.equal(ours.html, m.html);
      }
      assert.ok(ours.date instanceof Date && Math.abs(ours.date.getTime() - Date.now()) < 60_000);
    });
  }

  test('line rules: CRLF only, body lines ≤ 76, headers folded; ASCII only', () => {
    const c = composeMessage(cases[1]![1])!;
    assert.doesNotMatch(c.raw, /\r(?!\n)|(?<!\r)\n/, 'no bare CR or LF');
    assert.match(c.raw, /^[\x00-\x7f]*$/, '7-bit');
    const [head, ...body] = c.raw.split('\r\n\r\n');
    for (const line of body.join('\r\n\r\n').split('\r\n')) assert.ok(line.length <= 76, line);
    for (const line of head!.split('\r\n')) assert.ok(line.length <= 78, line);
    assert.match(head!, /\nSubject: =\?UTF-8\?Q\?Gr=C3=BC/);
    assert.match(head!, /\nMIME-Version: 1\.0\r\n/);
  });

  test('no header injection: CR/LF in the subject or a header value stays inside that header', async () => {
    const c = composeMessage({
      from: 'a@b.test',
      to: 'c@d.test',
      subject: 'Hi\r\nBcc: evil@x.test',
      messageId: 'e5@b.test',
      text: 't',
      headers: { 'X-Note': 'one\r\nX-Evil: 1\r\n\r\nbody' },
    })!;
    const p = await simpleParser(c.raw);
    assert.equal(p.bcc, undefined);
    assert.equal(p.headers.get('x-evil'), undefined);
    assert.equal(p.subject, 'Hi Bcc: evil@x.test');
    assert.equal(p.text, 't\n');
  });

  test('leaves to nodemailer what it does not handle (undefined)', () => {
    const base = { from: 'a@b.test', to: 'c@d.test', subject: 's', messageId: 'f6@b.test', text: 't' };
    assert.ok(composeMessage(base));
    assert.equal(composeMessage({ ...base, to: 'ünï@example.com' }), undefined, 'non-ASCII local part (SMTPUTF8)');
    assert.equal(composeMessage({ ...base, to: 'ada@bücher.test' }), undefined, 'IDN domain (punycode)');
    assert.equal(composeMessage({ ...base, to: 'Ada <c@d.test>' }), undefined, 'a display name');
    assert.equal(composeMessage({ ...base, from: 'Nobody' }), undefined, 'a sender without an address');
    assert.equal(composeMessage({ ...base, replyTo: 'not an address' }), undefined);
    assert.equal(
      composeMessage({ ...base, headers: { 'Content-Type': 'text/plain' } }),
      undefined,
      'a header we write ourselves',
    );
    assert.equal(composeMessage({ ...base, headers: { 'Bad Key': 'x' } }), undefined, 'an invalid field name');
  });
});

/** A line ending in a soft break whose last encoded bytes stop inside a UTF-8 sequence. */
function splitsUtf8(line: string): boolean {
  const run = /((?:=[0-9A-F]{2})+)=$/.exec(line)?.[1];
  if (!run) return false;
  const bytes = run
    .slice(1)
    .split('=')
    .map((h) => parseInt(h, 16));
  let need = 0;
  for (const b of bytes) {
    if (need > 0 && (b & 0xc0) === 0x80) need--;
    else need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : 0;
  }
  return need > 0;
}

describe('encodeQuotedPrintable', () => {
  test('round trip through mailparser for random text, lines ≤ 76, no trailing whitespace, no split UTF-8', async () => {
    const alphabet = [
      'a',
      'b',
      ' ',
      '\t',
      '\n',
      '\r\n',
      '\r',
      '=',
      '.',
      'é',
      '✓',
      '😀',
      'x'.repeat(80),
      '\u0001',
      '  ',
    ];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let t = 0; t < 150; t++) {
      let s = '';
      for (let k = rnd(300); k > 0; k--) s += alphabet[rnd(alphabet.length)];
      const qp = encodeQuotedPrintable(s);
      for (const line of qp.split('\r\n')) {
        assert.ok(line.length <= 76, `line of ${line.length}: ${JSON.stringify(s)}`);
        assert.doesNotMatch(line, /[ \t]$/, JSON.stringify(s));
        assert.ok(!splitsUtf8(line), `a soft break splits a UTF-8 sequence: ${line}`);
      }
      const raw = `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${qp}`;
      const text = (await simpleParser(raw)).text ?? '';
      assert.equal(text, s.replace(/\r\n|\r/g, '\n'), JSON.stringify(s));
    }
  });

  test('a lone CR is a line break too (RFC 5322 has no bare CR)', () => {
    assert.equal(encodeQuotedPrintable('a\rb\nc\r\nd'), 'a\r\nb\r\nc\r\nd');
  });

  test('known encodings: "=", trailing space and tab, UTF-8, soft break at 76', () => {
    assert.equal(encodeQuotedPrintable('a=b'), 'a=3Db');
    assert.equal(encodeQuotedPrintable('end \nx\t'), 'end=20\r\nx=09');
    assert.equal(encodeQuotedPrintable('é✓'), '=C3=A9=E2=9C=93');
    assert.equal(encodeQuotedPrintable('x'.repeat(80)), 'x'.repeat(75) + '=\r\n' + 'x'.repeat(5));
    assert.equal(
      encodeQuotedPrintable('x'.repeat(74) + 'é'),
      'x'.repeat(74) + '=\r\n=C3=A9',
      'a UTF-8 sequence is not split',
    );
  });
});
