// The one outcome rule: one table of mail server answers, run for a campaign's ledger row (outcomeOf) and for
// an automation email sent through the pipeline (sendAutomationEmail with the process's pacing), which must
// come out alike; and a 421 from one provider holds back both kinds of mail to that provider.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import { sendAutomationEmail } from '../../../src/domain/delivery/automationEmail.ts';
import type { Claimed } from '../../../src/domain/delivery/ledgerQueries.ts';
import type { AutomationEmail } from '../../../src/domain/delivery/message.ts';
import { bounceOf, outcomeOf, renderFailed, transient, type Outcome } from '../../../src/domain/delivery/outcome.ts';
import { Pacing } from '../../../src/domain/delivery/pacing.ts';
import type { MailTransport, SendResult } from '../../../src/mail/transport.ts';
import { migratedDb } from '../../support/db.ts';

const config: Config = {
  ...loadConfig(
    {
      MAILGROVE_SECRET: 'outcome-secret',
      LOG_LEVEL: 'silent',
      SEND_MAX_ATTEMPTS: '3',
      SEND_RETRY_BASE_MS: '1000',
      SOFT_BOUNCE_LIMIT: '3',
      PROVIDER_BACKOFF_BASE_MS: '60000',
    },
    {},
  ),
  secret: 'outcome-secret',
};
const { db } = await migratedDb();
const silent = { info() {}, warn() {}, error() {} };

const row = (attempts: number): Claimed => ({
  id: 7,
  subscriber_id: 's',
  email: 'a@b.example',
  attempts,
  first_name: null,
  last_name: null,
  phone: null,
  status: 'active',
  custom_fields: {},
  created_at: new Date(),
});
const refused = (code: number, text: string): SendResult => ({ ok: false, permanent: code >= 500, code, error: text });
const lost = transient(new Error('Connection closed'));

/** [what the server answered, on which attempt, what the message becomes] */
const REPLIES: [string, SendResult, number, Partial<Record<string, unknown>>][] = [
  ['250 delivered', { ok: true, messageId: 'm@x', response: '250 2.0.0 Ok' }, 1, { state: 'sent' }],
  ['550 5.1.1 no mailbox', refused(550, '550 5.1.1 User unknown'), 1, { state: 'failed', failure: 'bounced' }],
  ['550 without a status', refused(550, '550 no such user'), 1, { state: 'failed', failure: 'bounced' }],
  ['554 5.7.1 policy', refused(554, '554 5.7.1 spam'), 1, { state: 'failed', failure: 'blocked' }],
  ['552 5.3.4 too big', refused(552, '552 5.3.4 too big'), 1, { state: 'failed', failure: 'rejected' }],
  ['452 4.2.2 full, first try', refused(452, '452 4.2.2 Mailbox full'), 1, { state: 'queued', retry_in_ms: 1000 }],
  ['452 4.2.2 full, second try', refused(452, '452 4.2.2 Mailbox full'), 2, { state: 'queued', retry_in_ms: 2000 }],
  [
    '452 4.2.2 full, last try',
    refused(452, '452 4.2.2 Mailbox full'),
    3,
    { state: 'failed', failure: 'expired', soft_bounce_limit: 3 },
  ],
  ['451 4.7.1 throttled, last try', refused(451, '451 4.7.1 slow down'), 3, { state: 'failed', failure: 'expired' }],
  ['no answer', lost, 1, { state: 'queued', retry_in_ms: 1000 }],
  ['no answer, last try', lost, 3, { state: 'failed', failure: 'error' }],
];

const pick = (o: Outcome, keys: string[]) => Object.fromEntries(keys.map((k) => [k, (o as any)[k]]));

function answering(res: SendResult): MailTransport & { sent: number } {
  const t = {
    sent: 0,
    async send() {
      t.sent++;
      return res;
    },
    async close() {},
  };
  return t as unknown as MailTransport & { sent: number };
}

function email(to: string): AutomationEmail {
  return {
    accountId: '00000000-0000-4000-8000-000000000001',
    automationId: '00000000-0000-4000-8000-000000000002',
    step: { subject: 'Hi', content_html: '<p>Hi</p>' },
    account: { default_from_name: null, default_from_email: null, default_reply_to: null, tracking_enabled: true },
    subscriber: { id: '00000000-0000-4000-8000-000000000003', email: to },
    emailId: '00000000-0000-4000-8000-000000000004',
    links: [],
    messageId: 'auto@x',
  };
}

describe('one table of SMTP answers, campaign and automation mail alike', () => {
  for (const [name, res, attempts, expected] of REPLIES)
    test(name, async () => {
      const keys = Object.keys(expected);
      const campaign = outcomeOf(config, row(attempts), res);
      assert.deepEqual(pick(campaign, keys), expected, 'campaign');
      // each its own provider (no MX lookup): a throttle here must not hold back the next line's domain
      const pacing = new Pacing({ db, config, log: silent }, async () => []);
      const to = `x@${name.replace(/[^a-z0-9]/gi, '')}.example`;
      const sent = await sendAutomationEmail({ db, config, transport: answering(res), pacing }, email(to), attempts);
      assert.ok('outcome' in sent);
      assert.deepEqual(pick(sent.outcome, keys), expected, 'automation');
      assert.deepEqual(bounceOf(sent.outcome), bounceOf(campaign));
    });

  test('a template that fails at render time fails the message as error, and nothing is sent', async () => {
    assert.deepEqual(renderFailed(7, new Error('bad tag')), {
      id: 7,
      state: 'failed',
      error: 'Template error: bad tag',
      failure: 'error',
    });
    const transport = answering({ ok: true, messageId: 'm' });
    const pacing = new Pacing({ db, config, log: silent }, async () => []);
    const broken = { ...email('x@render.example'), step: { subject: '{% if %}', content_html: '<p>x</p>' } };
    const sent = await sendAutomationEmail({ db, config, transport, pacing }, broken, 1);
    assert.ok('outcome' in sent);
    assert.deepEqual([sent.outcome.state, (sent.outcome as any).failure], ['failed', 'error']);
    assert.equal(transport.sent, 0);
  });
});

test('a 421 from one provider holds back campaign and automation mail to it alike, and no one else', async () => {
  // two domains on one host: one provider
  const pacing = new Pacing({ db, config, log: silent }, async (domain) =>
    domain.endsWith('.slow.example') ? [{ exchange: 'mx.slowhost.example', priority: 10 }] : [],
  );
  const throttle = answering(refused(421, '421 4.7.0 Too many messages, slow down'));
  const first = await sendAutomationEmail({ db, config, transport: throttle, pacing }, email('a@one.slow.example'), 1);
  assert.ok('outcome' in first);
  assert.equal(first.outcome.state, 'queued');
  // retried when the provider's backoff ends, not after the recipient's own delay
  assert.ok((first.outcome as any).retry_in_ms > 30_000, `retry in ${(first.outcome as any).retry_in_ms} ms`);
  await pacing.backoffs.stored();

  const [provider] = await pacing.providersOf(['b@two.slow.example']);
  assert.equal(provider, 'slowhost.example');
  assert.equal(pacing.backoffs.backingOff(provider!), true, 'the campaign lanes hold the provider back');
  const next = answering({ ok: true, messageId: 'm' });
  const second = await sendAutomationEmail({ db, config, transport: next, pacing }, email('b@two.slow.example'), 1);
  assert.ok('deferred' in second, 'the next automation email to the provider waits');
  assert.equal(second.deferred.provider, 'slowhost.example');
  assert.ok(second.deferred.until.getTime() > Date.now() + 30_000);
  assert.equal(next.sent, 0);

  // the backoff is in the database: another instance's pacing sees it too
  const other = new Pacing({ db, config, log: silent }, async () => [
    { exchange: 'mx.slowhost.example', priority: 10 },
  ]);
  await other.backoffs.refresh();
  assert.equal(other.backoffs.backingOff('slowhost.example'), true);

  const elsewhere = await sendAutomationEmail({ db, config, transport: next, pacing }, email('c@fast.example'), 1);
  assert.ok('outcome' in elsewhere && elsewhere.outcome.state === 'sent', 'other providers are not held back');
});
