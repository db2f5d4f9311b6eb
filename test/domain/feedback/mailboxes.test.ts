// An account's own bounce mailbox: the URL is checked and sealed, shown back only as its host; polled
// against a real IMAP server (Dovecot), what it holds is applied to that account only, a wrong password
// is written on the mailbox, and two instances polling at once apply each message once. The instance
// mailbox's lease key is shared by every instance configured with the same mailbox.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import type { Db } from '../../../src/db/client.ts';
import { migrate } from '../../../src/db/migrate.ts';
import {
  accountMailbox,
  instanceMailboxKey,
  pollAccountMailboxes,
  setAccountMailbox,
} from '../../../src/domain/feedback/mailboxes.ts';
import { openTestDb, type TestDb } from '../../support/db.ts';
import { dovecotSkip, startImapServer, type ImapServer } from '../../support/imapServer.ts';
import { automationBounce, automationEmail } from '../../support/inbound.ts';

const base = { ...loadConfig({ SOFT_BOUNCE_LIMIT: 3, BOUNCE_DOMAIN: 'b.example' }, {}), secret: 's3cret' };
const config = { ...base, ALLOW_PRIVATE_SMTP_RELAYS: true, BOUNCE_IMAP_POLL_MS: 100 };
const quiet = { info() {}, warn() {}, error() {} };
let testDb: TestDb;
let db: Db;
before(async () => {
  testDb = await openTestDb();
  db = testDb.handle.db;
  await migrate(db);
});
after(() => testDb.destroy());

const statusOf = async (subscriberId: string) =>
  (await db.selectFrom('subscribers').select('status').where('id', '=', subscriberId).executeTakeFirstOrThrow()).status;

test('the URL is refused when malformed or private, sealed at rest, and never shown back', async () => {
  const { accountId } = await automationEmail(db, 'set@example.com');
  const refused = async (url: unknown, cfg = base) =>
    assert.rejects(setAccountMailbox(db, cfg, accountId, { bounce_imap_url: url }), (e: any) => {
      assert.equal(e.kind, 'validation');
      assert.ok(e.fields.bounce_imap_url, JSON.stringify(e.fields));
      return true;
    });
  await refused('https://u:p@mail.example/INBOX');
  await refused('imaps://mail.example/INBOX');
  await refused('imaps://u:p@127.0.0.1/INBOX');
  await refused('imaps://u:p@10.1.2.3:993/INBOX');
  await refused(42);
  await refused(undefined);
  assert.equal((await accountMailbox(db, accountId)).configured, false);

  await setAccountMailbox(db, config, accountId, {
    bounce_imap_url: 'imaps://bounce-user:Secret-Pw@127.0.0.1:993/INBOX',
  });
  const row = await db
    .selectFrom('bounce_mailboxes')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  assert.ok(!row.url_sealed.includes('Secret-Pw') && !row.url_sealed.includes('bounce-user'));
  const view = await accountMailbox(db, accountId);
  assert.deepEqual(view, { configured: true, host: '127.0.0.1', last_polled_at: null, last_error: null });
  assert.ok(!JSON.stringify(view).includes('Secret-Pw'));
  await setAccountMailbox(db, config, accountId, { bounce_imap_url: null });
  assert.equal((await accountMailbox(db, accountId)).configured, false);
});

test('the instance mailbox: one lease for every instance with the same mailbox', () => {
  assert.equal(
    instanceMailboxKey('imaps://u:p1@Mail.example/INBOX'),
    instanceMailboxKey('imaps://u:p2@mail.example:993/INBOX?processed=Done'),
  );
  assert.notEqual(
    instanceMailboxKey('imaps://u:p@mail.example/INBOX'),
    instanceMailboxKey('imaps://v:p@mail.example/INBOX'),
  );
});

describe("polling an account's mailbox", { skip: dovecotSkip }, () => {
  let imap: ImapServer;
  before(async () => {
    imap = await startImapServer({ acme: 'pw-acme', race: 'pw-race', wrong: 'pw-wrong' });
  });
  after(() => imap?.stop());

  const report = (e: { emailId: string; messageId: string }, email: string, status = '5.1.1') => {
    const { returnPath, raw } = automationBounce(config.secret, e, email, status);
    return `Delivered-To: ${returnPath}\r\n${raw}`;
  };
  const dueNow = (accountId: string) =>
    db.updateTable('bounce_mailboxes').set({ last_polled_at: null }).where('account_id', '=', accountId).execute();

  test("its own reports apply; another account's are kept unmatched; the mailbox is emptied", async () => {
    const mine = await automationEmail(db, 'mine@example.com');
    const theirs = await automationEmail(db, 'theirs@example.com');
    await setAccountMailbox(db, config, mine.accountId, { bounce_imap_url: imap.url('acme') });
    await imap.append('acme', report(mine, 'mine@example.com'));
    await imap.append('acme', report(theirs, 'theirs@example.com'));
    await pollAccountMailboxes(db, config, randomUUID(), quiet);
    assert.equal(await statusOf(mine.subscriberId), 'bounced');
    assert.equal(await statusOf(theirs.subscriberId), 'active');
    const kept = await db
      .selectFrom('inbound_mail')
      .select(['account_id', 'outcome', 'reason'])
      .where('rcpt_to', 'like', 'bounce+%')
      .where('via', '=', 'imap')
      .where('reason', 'like', '%own bounce mailbox%')
      .execute();
    assert.equal(kept.length, 1);
    assert.equal(kept[0]!.account_id, null);
    assert.deepEqual(await imap.list('acme'), []);
    const view = await accountMailbox(db, mine.accountId);
    assert.ok(view.last_polled_at);
    assert.equal(view.last_error, null);
  });

  test('two instances polling at once apply each message once', async () => {
    const owner = await automationEmail(db, 'race0@example.com');
    await setAccountMailbox(db, config, owner.accountId, { bounce_imap_url: imap.url('race') });
    const emails = [owner];
    for (let i = 1; i < 5; i++) {
      emails.push(await automationEmail(db, `race${i}@example.com`, owner.accountId));
    }
    for (const [i, e] of emails.entries()) await imap.append('race', report(e, `race${i}@example.com`, '4.2.2'));
    await Promise.all([
      pollAccountMailboxes(db, config, randomUUID(), quiet),
      pollAccountMailboxes(db, config, randomUUID(), quiet),
    ]);
    const rows = await db
      .selectFrom('inbound_mail')
      .select(['outcome'])
      .where('account_id', '=', owner.accountId)
      .execute();
    assert.equal(rows.length, 5, JSON.stringify(rows));
    assert.ok(rows.every((r) => r.outcome === 'soft_bounced'));
    assert.deepEqual(await imap.list('race'), []);
  });

  // last: Dovecot slows down logins from an address after a failed one
  test('a wrong password is written on the mailbox, without the password', async () => {
    const { accountId } = await automationEmail(db, 'wrong@example.com');
    await setAccountMailbox(db, config, accountId, {
      bounce_imap_url: imap.url('wrong').replace(':pw-wrong@', ':Not-The-Pw@'),
    });
    await dueNow(accountId);
    await pollAccountMailboxes(db, config, randomUUID(), quiet);
    const view = await accountMailbox(db, accountId);
    assert.ok(view.last_polled_at);
    assert.match(view.last_error ?? '', /authentication failed/i);
    assert.ok(!view.last_error!.includes('Not-The-Pw'));
  });
});
