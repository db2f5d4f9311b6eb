// Late reports that come home to a mailbox, end to end against a real IMAP server (Dovecot): a campaign
// to six recipients through a relay that accepts everything, then the relay's reports appended to the
// instance's bounce mailbox (BOUNCE_IMAP_URL) — a 5.1.1 and a 4.2.2 DSN, an ARF complaint at a return
// path, a complaint from a feedback loop at fbl@ matched by the message it quotes, a person's mail to
// a mailto unsubscribe address, and a message nobody can attribute. The running server's poller applies
// each exactly as the listener would, empties the mailbox, keeps the stray message unmatched. Then an
// owner sets the account's own bounce mailbox from Settings, and a report there bounces its recipient.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendCampaignTo } from '../support/campaigns.ts';
import { dovecotSkip, startImapServer, type ImapServer } from '../support/imapServer.ts';
import { arf, dsn } from '../support/inbound.ts';
import { ADMIN_TOKEN, startServer } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';
import { until } from '../support/until.ts';
import { signedIn } from '../http/dashboard/session.ts';

const DOMAIN = 'bounces.example.test';

describe('the bounce mailbox', { skip: dovecotSkip }, () => {
  let imap: ImapServer;
  before(async () => {
    imap = await startImapServer({ instance: 'instance-pw', acme: 'acme-pw' });
  });
  after(() => imap?.stop());

  test('reports in the mailbox reach the exact recipient; the mailbox is emptied; strays stay unmatched', async (t) => {
    const sink = await startSink();
    const server = await startServer(t, {
      SMTP_URL: sink.url,
      BOUNCE_DOMAIN: DOMAIN,
      BOUNCE_IMAP_URL: imap.url('instance'),
      BOUNCE_IMAP_POLL_MS: 200,
      ALLOW_PRIVATE_SMTP_RELAYS: true,
      SOFT_BOUNCE_LIMIT: 3,
    });
    t.after(() => sink.close());
    const { accountId, api } = await server.restAccount();
    const emails = Array.from({ length: 6 }, (_, i) => `box${i}@example.com`);
    const sent = await sendCampaignTo(server.db, api, accountId, emails, { from_email: 'news@example.com' });
    await sink.waitFor(() => sink.total() === 6);
    const returnPath = new Map(sink.messages.map((m) => [m.to[0]!, m.from]));
    const mailto = new Map(
      sink.messages.map((m) => [
        m.to[0]!,
        /<mailto:(unsubscribe\+[a-z2-7]+@[^?>]+)\?/.exec(m.raw.toString().replace(/\r\n\s+/g, ' '))![1]!,
      ]),
    );
    const [hard, soft, complaint, fromLoop, leaving, later] = emails as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const msgId = (e: string) => sent.messageIds.get(e)!;
    // what the mailbox's server writes on delivery: the address it was delivered to
    const delivered = (to: string, raw: string) => `Return-Path: <>\r\nDelivered-To: ${to}\r\n${raw}`;
    const report = (e: string, status: string) =>
      delivered(
        returnPath.get(e)!,
        dsn({ to: returnPath.get(e)!, rcpt: e, status, diagnostic: `550 ${status} nope`, messageId: msgId(e) }),
      );

    await imap.append('instance', report(hard, '5.1.1'));
    await imap.append('instance', report(soft, '4.2.2'));
    await imap.append(
      'instance',
      delivered(
        returnPath.get(complaint)!,
        arf({ to: returnPath.get(complaint)!, rcpt: complaint, messageId: msgId(complaint) }),
      ),
    );
    // a feedback loop: sent to the one registered address, the recipient redacted, our return path quoted
    await imap.append(
      'instance',
      delivered(
        `fbl@${DOMAIN}`,
        arf({ to: `fbl@${DOMAIN}`, rcpt: 'redacted@example.com', returnPath: returnPath.get(fromLoop)! }),
      ),
    );
    await imap.append(
      'instance',
      delivered(mailto.get(leaving)!, `From: ${leaving}\r\nSubject: unsubscribe\r\n\r\nplease\r\n`),
    );
    await imap.append(
      'instance',
      delivered(`postmaster@${DOMAIN}`, 'From: someone@else.example\r\nSubject: hello there\r\n\r\nhi\r\n'),
    );

    const status = async () =>
      new Map(
        (
          await server.db
            .selectFrom('subscribers')
            .select(['email', 'status'])
            .where('account_id', '=', accountId)
            .execute()
        ).map((r) => [r.email, r.status]),
      );
    await until('the mailbox to be read', async () => (await imap.list('instance')).length === 0, 10_000);
    const now = await status();
    assert.deepEqual(
      emails.map((e) => now.get(e)),
      ['bounced', 'active', 'complained', 'complained', 'unsubscribed', 'active'],
    );
    const streak = await server.db
      .selectFrom('soft_bounce_streaks')
      .select('count')
      .where('subscriber_id', '=', sent.subscriberIds.get(soft)!)
      .executeTakeFirst();
    assert.equal(streak?.count, 1);
    const inbound = await server.db.selectFrom('inbound_mail').select(['via', 'outcome']).execute();
    assert.ok(inbound.every((r) => r.via === 'imap'));
    assert.deepEqual(inbound.map((r) => r.outcome).sort(), [
      'bounced',
      'complained',
      'complained',
      'soft_bounced',
      'unmatched',
      'unsubscribed',
    ]);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const unmatched: any = await (await fetch(`${server.url}/admin/v1/inbound/unmatched`, { headers: admin })).json();
    assert.deepEqual(
      unmatched.data.unmatched.map((u: any) => [u.rcpt_to, u.subject]),
      [[`postmaster@${DOMAIN}`, 'hello there']],
    );

    // the account's own mailbox, set from Settings by an owner (a viewer may only look)
    const viewer = await signedIn(server, 'viewer', accountId);
    assert.equal((await viewer.client.put('/bounces/mailbox', { bounce_imap_url: imap.url('acme') })).status, 403);
    const owner = await signedIn(server, 'owner', accountId);
    const set = await owner.client.put('/bounces/mailbox', { bounce_imap_url: imap.url('acme') });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.data.host, '127.0.0.1');
    assert.ok(!JSON.stringify(set.body).includes('acme-pw'));
    await imap.append('acme', report(later, '5.1.1'));
    await until('the account mailbox to be read', async () => (await status()).get(later) === 'bounced', 10_000);
    const setup = (await viewer.client.get('/bounces')).body.data;
    assert.equal(setup.mailbox.configured, true);
    assert.equal(setup.mailbox.last_error, null);
    assert.ok(setup.mailbox.last_poll_at);
    assert.equal(setup.account_mailbox.configured, true);
    assert.equal(setup.account_mailbox.last_error, null);
    assert.ok(!JSON.stringify(setup).includes('-pw'));
    // every live instance tells the others what its mailbox poller does, with its heartbeat
    const instances = await until('the heartbeat to carry the mailbox', async () => {
      const list = (await viewer.client.get('/bounces')).body.data.instances;
      return list.some((i: any) => i.mailbox) && list;
    });
    assert.equal(instances[0].mailbox.mailbox, '127.0.0.1/INBOX');
    assert.equal(instances[0].mailbox.last_error, null);
  });
});
