// receive() without HTTP: the automation email path, test sends, the UNSUBSCRIBE_MAILTO subject token,
// complaints at the feedback-loop address (matched by the message they quote, forgeries changing nothing),
// mail from an account's own mailbox naming another account, and what is stored of hostile messages
// (non-UTF-8 headers, NULs) when they cannot be attributed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import type { Db } from '../../../src/db/client.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { acceptsRecipient, receive } from '../../../src/domain/feedback/inbound.ts';
import { unsubscribeToken } from '../../../src/mail/unsubscribe.ts';
import { verpAddress } from '../../../src/mail/verp.ts';
import { openTestDb, type TestDb } from '../../support/db.ts';
import { groupOf, newAccount } from '../../support/domain.ts';
import { arf, automationBounce, automationEmail, dsn } from '../../support/inbound.ts';

const config = {
  ...loadConfig({ UNSUBSCRIBE_MAILTO: 'leave@b.example', SOFT_BOUNCE_LIMIT: 3, BOUNCE_DOMAIN: 'b.example' }, {}),
  secret: 's3cret',
};
let testDb: TestDb;
let db: Db;
before(async () => {
  testDb = await openTestDb();
  db = testDb.handle.db;
  await migrate(db); // PGlite's template is migrated already; a PostgreSQL test schema starts empty
});
after(() => testDb.destroy());

test('an automation email bounces by its own return path; the event names the automation step', async () => {
  const e = await automationEmail(db, 'auto@example.com');
  const { returnPath: rp, raw } = automationBounce(config.secret, e, 'auto@example.com');
  const [h] = await receive(db, config, {
    via: 'imap',
    mailFrom: '',
    rcptTo: [rp.toUpperCase()],
    raw: Buffer.from(raw),
  });
  assert.equal(h!.outcome, 'bounced');
  const sub = await db
    .selectFrom('subscribers')
    .select('status')
    .where('id', '=', e.subscriberId)
    .executeTakeFirstOrThrow();
  assert.equal(sub.status, 'bounced');
  const row = await db
    .selectFrom('automation_emails')
    .select(['feedback', 'feedback_status', 'bounced_at'])
    .where('id', '=', e.emailId)
    .executeTakeFirstOrThrow();
  assert.equal(row.feedback, 'bounced');
  assert.equal(row.feedback_status, '5.1.1');
  assert.ok(row.bounced_at);
  const ev = await db
    .selectFrom('events')
    .select('data')
    .where('account_id', '=', e.accountId)
    .where('type', '=', 'email.bounced')
    .executeTakeFirstOrThrow();
  assert.equal((ev.data as any).automation_id, e.automationId);
  assert.equal((ev.data as any).step, '0');

  // its mailto unsubscribe address: a person's mail unsubscribes, an auto-reply to it does not
  const other = await automationEmail(db, 'auto2@example.com');
  const leave = verpAddress(config.secret, 'unsubscribe', { kind: 'automation', emailId: other.emailId }, 'b.example');
  const ooo = Buffer.from('Auto-Submitted: auto-replied\r\nSubject: Out of office\r\n\r\naway\r\n');
  assert.equal(
    (await receive(db, config, { via: 'smtp', mailFrom: 'x@y', rcptTo: [leave], raw: ooo }))[0]!.outcome,
    'ignored',
  );
  const please = Buffer.from('Subject: unsubscribe\r\n\r\nplease\r\n');
  assert.equal(
    (await receive(db, config, { via: 'smtp', mailFrom: 'x@y', rcptTo: [leave], raw: please }))[0]!.outcome,
    'unsubscribed',
  );
  const s2 = await db
    .selectFrom('subscribers')
    .select('status')
    .where('id', '=', other.subscriberId)
    .executeTakeFirstOrThrow();
  assert.equal(s2.status, 'unsubscribed');
});

test('a test send’s bounce is recorded for its account and changes no subscriber', async () => {
  const accountId = await newAccount(db, `T ${randomUUID()}`);
  const rp = verpAddress(config.secret, 'bounce', { kind: 'test', accountId }, 'b.example');
  const raw = dsn({ to: rp, rcpt: 'tester@example.com', status: '5.1.1', diagnostic: '550 unknown', messageId: 'x@y' });
  const [h] = await receive(db, config, { via: 'smtp', mailFrom: '', rcptTo: [rp], raw: Buffer.from(raw) });
  assert.equal(h!.outcome, 'ignored');
  assert.equal(h!.accountId, accountId);
  assert.match(h!.reason!, /test email, recorded only/);
});

test('UNSUBSCRIBE_MAILTO: the link token in the subject unsubscribes; without one the mail is unmatched', async () => {
  const accountId = await newAccount(db, `U ${randomUUID()}`);
  await groupOf(db, accountId, ['legacy@example.com']);
  const sub = await db
    .selectFrom('subscribers')
    .select('id')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const token = unsubscribeToken(config.secret, accountId, sub.id);
  const mail = (subject: string) => Buffer.from(`Subject: ${subject}\r\n\r\n\r\n`);
  const [h] = await receive(db, config, {
    via: 'smtp',
    mailFrom: 'legacy@example.com',
    rcptTo: ['Leave@b.example'],
    raw: mail(`unsubscribe ${token}`),
  });
  assert.equal(h!.outcome, 'unsubscribed');
  const [bad] = await receive(db, config, {
    via: 'smtp',
    mailFrom: 'x@y',
    rcptTo: ['leave@b.example'],
    raw: mail('unsubscribe AAAAAAAAAAAAAAAAAAAAAAAA'),
  });
  assert.equal(bad!.outcome, 'unmatched');
});

test('hostile unmatched mail is stored storable: no NUL, no broken text, at most 256 KB', async () => {
  const head = Buffer.concat([
    Buffer.from('Subject: '),
    Buffer.from([0xff, 0xfe, 0x00, 0xe4, 0x01]),
    Buffer.from('\r\n\r\n'),
  ]);
  const raw = Buffer.concat([head, Buffer.alloc(600 * 1024, 0x61)]);
  const [h] = await receive(db, config, {
    via: 'smtp',
    mailFrom: 'a\u0000b@x',
    rcptTo: ['bounce+zzzz@b.example'],
    raw,
  });
  assert.equal(h!.outcome, 'unmatched');
  const row = await db
    .selectFrom('inbound_mail')
    .selectAll()
    .where('rcpt_to', '=', 'bounce+zzzz@b.example')
    .executeTakeFirstOrThrow();
  assert.ok(!row.mail_from!.includes('\u0000'));
  assert.ok(!(row.subject ?? '').includes('\u0000'));
  assert.equal(row.raw!.length, 256 * 1024);
  assert.equal(row.size, raw.length);
});

const statusOf = async (subscriberId: string) =>
  (await db.selectFrom('subscribers').select('status').where('id', '=', subscriberId).executeTakeFirstOrThrow()).status;

test('the feedback-loop address: fbl@ at the return-path domains only', () => {
  assert.ok(acceptsRecipient(config, 'fbl@b.example'));
  assert.ok(acceptsRecipient(config, 'FBL@bounces.acme.example'));
  assert.ok(!acceptsRecipient(config, 'fbl@elsewhere.example'));
  assert.ok(!acceptsRecipient({ ...config, BOUNCE_DOMAIN: undefined }, 'fbl@b.example'));
});

test('a complaint at the feedback-loop address is matched by its Return-Path, List-Unsubscribe or Message-ID', async () => {
  const fbl = (raw: string) =>
    receive(db, config, {
      via: 'smtp',
      mailFrom: 'fbl@provider.example',
      rcptTo: ['fbl@b.example'],
      raw: Buffer.from(raw),
    });
  const byReturnPath = await automationEmail(db, 'fbl1@example.com');
  const rp = verpAddress(config.secret, 'bounce', { kind: 'automation', emailId: byReturnPath.emailId }, 'b.example');
  // providers redact the recipient: the report names nobody, only the quoted message says who it was
  const [h1] = await fbl(arf({ to: 'fbl@b.example', rcpt: 'redacted@example.com', returnPath: rp }));
  assert.equal(h1!.outcome, 'complained');
  assert.equal(h1!.accountId, byReturnPath.accountId);
  assert.equal(await statusOf(byReturnPath.subscriberId), 'complained');

  const byMailto = await automationEmail(db, 'fbl2@example.com');
  const leave = verpAddress(
    config.secret,
    'unsubscribe',
    { kind: 'automation', emailId: byMailto.emailId },
    'b.example',
  );
  const header = `<https://mg.example/u/x>, <mailto:${leave}?subject=unsubscribe>`;
  assert.equal(
    (await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y.example', listUnsubscribe: header })))[0]!.outcome,
    'complained',
  );
  assert.equal(await statusOf(byMailto.subscriberId), 'complained');

  const byMessageId = await automationEmail(db, 'fbl3@example.com');
  const [h3] = await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y.example', messageId: byMessageId.messageId }));
  assert.equal(h3!.outcome, 'complained');
  assert.equal(await statusOf(byMessageId.subscriberId), 'complained');
});

test('a forged report at the feedback-loop address changes nothing', async () => {
  const fbl = (raw: string) =>
    receive(db, config, { via: 'smtp', mailFrom: '', rcptTo: ['fbl@b.example'], raw: Buffer.from(raw) });
  const victim = await automationEmail(db, 'victim@example.com');
  const other = await automationEmail(db, 'other@example.com');
  const rp = verpAddress(config.secret, 'bounce', { kind: 'automation', emailId: victim.emailId }, 'b.example');
  const tampered = rp.replace(/(.)@/, (_m, c: string) => (c === 'a' ? 'b' : 'a') + '@');
  const outcomes = [
    // a tampered token, even beside the right Message-ID
    await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y', returnPath: tampered, messageId: victim.messageId })),
    // a token of one email and the Message-ID of another
    await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y', returnPath: rp, messageId: other.messageId })),
    // a Message-ID we never sent
    await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y', messageId: 'made-up@nowhere.example' })),
    // nothing quoted that names an email
    await fbl(arf({ to: 'fbl@b.example', rcpt: 'x@y' })),
    // not a report at all
    await fbl('Subject: please confirm your feedback loop\r\n\r\nclick here\r\n'),
  ];
  assert.deepEqual(
    outcomes.map(([h]) => h!.outcome),
    ['unmatched', 'unmatched', 'unmatched', 'unmatched', 'unmatched'],
  );
  assert.match(outcomes[0]![0]!.reason!, /does not verify/);
  assert.match(outcomes[1]![0]!.reason!, /different emails/);
  assert.equal(await statusOf(victim.subscriberId), 'active');
  assert.equal(await statusOf(other.subscriberId), 'active');
});

test("an account's own mailbox cannot touch another account's rows", async () => {
  const theirs = await automationEmail(db, 'theirs@example.com');
  const mine = await automationEmail(db, 'mine@example.com');
  const { returnPath: rp, raw } = automationBounce(config.secret, theirs, 'theirs@example.com');
  const [h] = await receive(db, config, {
    via: 'imap',
    mailFrom: '',
    rcptTo: [rp],
    raw: Buffer.from(raw),
    onlyAccount: mine.accountId,
  });
  assert.equal(h!.outcome, 'unmatched');
  assert.equal(h!.accountId, null);
  assert.equal(await statusOf(theirs.subscriberId), 'active');
  // the same report from the owner's own mailbox applies
  const [own] = await receive(db, config, {
    via: 'imap',
    mailFrom: '',
    rcptTo: [rp],
    raw: Buffer.from(raw),
    onlyAccount: theirs.accountId,
  });
  assert.equal(own!.outcome, 'bounced');
});
