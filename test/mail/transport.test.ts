// transport: pooled SMTP from SMTP_URL (plain, no STARTTLS with ?starttls=false), DKIM signing
// when DKIM_* are set, replies classified (4xx transient, 5xx permanent with the server's text), and the
// outbox capture without SMTP_URL (one INSERT for a whole batch with sendMany).
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createTransport } from '../../src/mail/transport.ts';
import { migratedDb } from '../support/db.ts';
import { newAccount } from '../support/domain.ts';
import { startSink } from '../support/smtpSink.ts';

const sink = await startSink({
  reply: (rcpt) =>
    rcpt.startsWith('later')
      ? [451, '4.3.0 Try later']
      : rcpt.startsWith('never')
        ? [550, '5.1.1 No such user']
        : undefined,
});
after(() => sink.close());
const { db } = await migratedDb();

const msg = (to: string) => ({
  accountId: null,
  from: 'News <news@acme.test>',
  to,
  subject: 'Hello',
  html: '<p>Hi</p>',
  text: 'Hi',
  headers: { Precedence: 'bulk' },
});

test('SMTP with DKIM: the message arrives signed (d= and s= from DKIM_DOMAIN / DKIM_SELECTOR), Message-ID on that domain', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString().replace(/\n/g, '\\n'); // as one env line
  const config = {
    ...loadConfig({ SMTP_URL: sink.url, DKIM_DOMAIN: 'acme.test', DKIM_SELECTOR: 'mg1', DKIM_PRIVATE_KEY: pem }, {}),
    secret: 's',
  };
  const transport = createTransport(config, db);
  try {
    const res = await transport.send(msg('signed@dkim.test'));
    assert.equal(res.ok, true, JSON.stringify(res));
    const got = sink.messages.find((m) => m.to[0] === 'signed@dkim.test')!.parsed!;
    const sig = got.headerLines.find((h) => h.key === 'dkim-signature')?.line ?? '';
    assert.match(sig, /d=acme\.test/);
    assert.match(sig, /s=mg1/);
    assert.match(got.messageId!, /@acme\.test>$/);
    assert.equal(res.ok && `<${res.messageId}>`, got.messageId);
    // the signature verifies over what arrived: our composed message (mime.ts) and nodemailer's own
    // composition (a recipient mime.ts leaves to it) alike, and not once a signed header is changed
    const publicKey = createPublicKey(privateKey);
    const raw = sink.messages.find((m) => m.to[0] === 'signed@dkim.test')!.raw.toString('latin1');
    assert.match(raw, /boundary="=_mg_/, 'composed by mime.ts');
    assert.equal(dkimVerify(raw, publicKey), true);
    assert.equal(dkimVerify(raw.replace(/^Subject: Hello/m, 'Subject: Hello!'), publicKey), false);
    const res2 = await transport.send(msg('signed@bücher.test'));
    assert.equal(res2.ok, true, JSON.stringify(res2));
    const raw2 = sink.messages.find((m) => m.to[0] === 'signed@bücher.test')!.raw.toString('latin1');
    assert.doesNotMatch(raw2, /boundary="=_mg_/, 'composed by nodemailer');
    assert.equal(dkimVerify(raw2, publicKey), true);
  } finally {
    await transport.close();
  }
});

/** DKIM rsa-sha256 with relaxed/relaxed canonicalization (RFC 6376 §3.4.2, 3.4.4), what nodemailer signs with. */
function dkimVerify(raw: string, publicKey: KeyObject): boolean {
  const split = raw.indexOf('\r\n\r\n');
  const fields = raw.slice(0, split).split(/\r\n(?![ \t])/);
  const relaxedHeader = (f: string) => {
    const i = f.indexOf(':');
    return `${f.slice(0, i).trim().toLowerCase()}:${f
      .slice(i + 1)
      .replace(/\r\n/g, '')
      .replace(/[ \t]+/g, ' ')
      .trim()}`;
  };
  const sigField = fields.find((f) => /^dkim-signature:/i.test(f))!;
  const tags = new Map(
    relaxedHeader(sigField)
      .slice('dkim-signature:'.length)
      .split(';')
      .map((t) => t.trim().split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  assert.equal(tags.get('c'), 'relaxed/relaxed');
  const body = raw
    .slice(split + 4)
    .split('\r\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
    .join('\r\n')
    .replace(/(\r\n)*$/, '');
  const bh = createHash('sha256')
    .update(body.length ? body + '\r\n' : '')
    .digest('base64');
  if (bh !== tags.get('bh')!.replace(/\s/g, '')) return false;
  const pool = fields.filter((f) => f !== sigField);
  let signed = '';
  for (const name of tags
    .get('h')!
    .toLowerCase()
    .split(':')
    .map((h) => h.trim())) {
    const i = pool.findLastIndex((f) => f.slice(0, f.indexOf(':')).trim().toLowerCase() === name);
    if (i >= 0) signed += relaxedHeader(pool.splice(i, 1)[0]!) + '\r\n';
  }
  signed += relaxedHeader(sigField).replace(/([; ]b=)[^;]*/, '$1');
  return verify('sha256', Buffer.from(signed), publicKey, Buffer.from(tags.get('b')!.replace(/\s/g, ''), 'base64'));
}

test('SMTP replies: 4xx → transient with the code, 5xx → permanent with the server text', async () => {
  const transport = createTransport({ ...loadConfig({ SMTP_URL: sink.url }, {}), secret: 's' }, db);
  try {
    const later = await transport.send(msg('later@codes.test'));
    assert.equal(later.ok, false);
    assert.deepEqual(!later.ok && [later.permanent, later.code], [false, 451]);
    const never = await transport.send(msg('never@codes.test'));
    assert.deepEqual(!never.ok && [never.permanent, never.code], [true, 550]);
    assert.match(!never.ok ? never.error : '', /5\.1\.1 No such user/);
  } finally {
    await transport.close();
  }
});

test('without SMTP_URL: the outbox captures each message; sendMany writes a batch in one go', async () => {
  const transport = createTransport({ ...loadConfig({}, {}), secret: 's' }, db);
  assert.equal(transport.kind, 'outbox');
  const results = await transport.sendMany!([msg('o1@outbox.test'), msg('o2@outbox.test')]);
  assert.ok(results.every((r) => r.ok));
  const rows = await db
    .selectFrom('outbox')
    .select(['to_addr', 'message_id', 'headers'])
    .where('to_addr', 'like', '%@outbox.test')
    .orderBy('to_addr')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.to_addr),
    ['o1@outbox.test', 'o2@outbox.test'],
  );
  assert.equal(rows[0]!.headers.Precedence, 'bulk');
  assert.deepEqual(
    rows.map((r) => r.message_id),
    results.map((r) => (r.ok ? r.messageId : '')),
  );
});

test("a message naming an account's relay leaves through that relay's pool, the rest the default way", async () => {
  const relaySink = await startSink();
  after(() => relaySink.close());
  const acc = await newAccount(db, 'Relayed');
  const someoneElse = await newAccount(db, 'Other');
  const reads: string[] = [];
  const relays = async (accountId: string, relayId: string) => {
    reads.push(relayId);
    return accountId === acc && relayId === 'r1' ? `smtp://127.0.0.1:${relaySink.port}?starttls=false` : undefined;
  };
  // outbox mode: the thread starts for relayed mail only; private relay hosts allowed (a loopback sink)
  const config = { ...loadConfig({ ALLOW_PRIVATE_SMTP_RELAYS: true }, {}), secret: 's' };
  const transport = createTransport(config, db, relays);
  try {
    assert.equal(transport.kind, 'outbox');
    const relayed = (to: string, relayId = 'r1', accountId = acc) => ({ ...msg(to), accountId, relayId });
    const results = await transport.sendMany!([
      relayed('via-relay@relay.test'),
      msg('plain@relay.test'),
      relayed('gone@relay.test', 'r2'),
      relayed('other-account@relay.test', 'r1', someoneElse),
    ]);
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results),
    );
    assert.deepEqual(relaySink.messages.map((m) => m.to).flat(), ['via-relay@relay.test']);
    const captured = await db
      .selectFrom('outbox')
      .select('to_addr')
      .where('to_addr', 'like', '%@relay.test')
      .orderBy('to_addr')
      .execute();
    assert.deepEqual(
      captured.map((r) => r.to_addr),
      ['gone@relay.test', 'other-account@relay.test', 'plain@relay.test'],
      "a relay that does not exist (or is not the account's) sends the default way",
    );
    // read once, then trusted for RELAY_RECHECK_MS
    const readsBefore = reads.length;
    assert.ok((await transport.send(relayed('again@relay.test'))).ok);
    assert.equal(reads.length, readsBefore);
    // dropped (deleted): read again, its pool opened anew
    transport.dropRelay!('r1');
    assert.ok((await transport.send(relayed('after-drop@relay.test'))).ok);
    assert.equal(reads.length, readsBefore + 1);
    assert.equal(relaySink.messages.length, 3);
  } finally {
    await transport.close();
  }
});
