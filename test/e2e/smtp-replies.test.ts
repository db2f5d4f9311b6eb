// Every SMTP reply understood at send time, by the same rule the bounce hooks apply: a real SMTP
// conversation with the sink answering per recipient (550 5.1.1, 554 5.7.1, 452 4.2.2), the ledger's
// reply columns and failure reasons over REST, the subscriber's status, the events and a webhook; soft
// bounces in a row through the generic hook; a SES transient report quoting 5.1.1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventsOfType, sendCampaignTo, waitForCampaign } from '../support/campaigns.ts';
import { startReceiver } from '../support/receiver.ts';
import { bounceSecretOf, statusOf } from '../support/rows.ts';
import { fileScope } from '../support/scope.ts';
import { client, startServer, type ApiClient } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';
import { until } from '../support/until.ts';

// nouser*@ gets 550 5.1.1, policy*@ 554 5.7.1, full*@ 452 4.2.2 once then delivery, gone*@ 452 4.2.2 always
const sink = await startSink({
  parse: false,
  reply: (rcpt, attempt) =>
    rcpt.startsWith('nouser')
      ? [550, '5.1.1 <' + rcpt + '>: Recipient address rejected: User unknown']
      : rcpt.startsWith('policy')
        ? [554, '5.7.1 Message refused by policy']
        : (rcpt.startsWith('full') && attempt === 1) || rcpt.startsWith('gone')
          ? [452, '4.2.2 Mailbox full']
          : undefined,
});
after(() => sink.close());
const s = await startServer(fileScope, {
  SMTP_URL: sink.url,
  WORKER_POLL_MS: 100,
  SCHEDULER_INTERVAL_MS: 200,
  SEND_RETRY_BASE_MS: 100,
  SEND_MAX_ATTEMPTS: 2,
  ALLOW_PRIVATE_WEBHOOK_URLS: true,
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
});
const hooks = client(s.url);
const receiver = await startReceiver();

let n = 0;
const unique = (local: string) => `${local}${++n}-${Math.random().toString(36).slice(2, 8)}@replies.test`;

async function account() {
  const a = await s.restAccount();
  return {
    ...a,
    secret: await bounceSecretOf(s.db, a.accountId),
    status: (e: string) => statusOf(s.db, a.accountId, e),
  };
}

async function rowsByEmail(api: ApiClient, campaignId: string): Promise<Record<string, any>> {
  const res = await api.get(`/campaigns/${campaignId}/recipients?per_page=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return Object.fromEntries(res.body.data.recipients.map((r: any) => [r.subscriber.email, r]));
}

/** Another instant campaign to a group that exists already; resolves when it is sent. */
async function sendToGroup(api: ApiClient, groupId: string): Promise<string> {
  const created = await api.post('/campaigns', {
    name: 'Again',
    subject: 'Again',
    content_html: '<p>Again</p>',
    group_ids: [groupId],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await api.post(`/campaigns/${created.body.data.id}/schedule`, { delivery: 'instant' });
  await waitForCampaign(api, created.body.data.id, (c) => c.status === 'sent');
  return created.body.data.id;
}

const genericSoft = (email: string) => [{ email, type: 'soft', detail: 'mailbox full' }];

describe('SMTP replies at send time', () => {
  test('550 5.1.1 → failed/bounced with the reply, subscriber bounced, email.bounced + subscriber.bounced, stats.bounces, a webhook; 554 5.7.1 → blocked, subscriber active; 452 4.2.2 → retried and delivered', async () => {
    const a = await account();
    const hook = (
      await a.api.post('/webhooks', { name: 'b', url: `${receiver.base}/bounced`, events: ['email.bounced'] })
    ).body.data as { id: string; secret: string };
    const [nouser, policy, full, ok] = [unique('nouser'), unique('policy'), unique('full'), unique('ok')];
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [nouser, policy, full, ok]);
    const rows = await rowsByEmail(a.api, sent.campaignId);

    const hard = rows[nouser];
    assert.equal(hard.state, 'failed');
    assert.equal(hard.failure, 'bounced');
    assert.equal(hard.smtp_code, 550);
    assert.equal(hard.smtp_status, '5.1.1');
    assert.match(hard.smtp_reply, /^550 5\.1\.1 <nouser.*User unknown$/);
    assert.match(hard.last_error, /550/, 'last_error reads as it did');
    assert.equal(sink.rcptAttempts.get(nouser), 1, 'a hard reply is not retried');
    assert.ok(hard.bounced_at, 'bounced_at set');
    assert.equal(await a.status(nouser), 'bounced');

    const blocked = rows[policy];
    assert.deepEqual(
      [blocked.state, blocked.failure, blocked.smtp_code, blocked.smtp_status],
      ['failed', 'blocked', 554, '5.7.1'],
    );
    assert.equal(blocked.bounced_at, null);
    assert.equal(await a.status(policy), 'active');

    const retried = rows[full];
    assert.deepEqual([retried.state, retried.failure], ['sent', null]);
    assert.equal(sink.rcptAttempts.get(full), 2, 'refused once, delivered on the retry');
    assert.equal(retried.smtp_code, 250, 'the reply of the delivery replaced the 452');
    assert.equal(sink.counts.get(full), 1);
    assert.deepEqual([rows[ok].state, rows[ok].failure, rows[ok].smtp_code], ['sent', null, 250]);
    assert.equal(await a.status(ok), 'active');

    const stats = (await a.api.get(`/campaigns/${sent.campaignId}`)).body.data.stats;
    assert.deepEqual([stats.sent, stats.failed, stats.bounces], [2, 2, 1]);

    const bounced = await eventsOfType(s.db, a.accountId, 'email.bounced');
    assert.equal(bounced.length, 1);
    // the refused message's own Message-ID, recorded before it went (what a provider's report would name)
    const refused = await s.db
      .selectFrom('campaign_recipients')
      .select('message_id')
      .where('campaign_id', '=', sent.campaignId)
      .where('subscriber_id', '=', sent.subscriberIds.get(nouser)!)
      .executeTakeFirstOrThrow();
    assert.match(refused.message_id ?? '', /^<?[^@\s]+@[^@\s]+>?$/);
    assert.deepEqual(bounced[0]!.data, {
      campaign_id: sent.campaignId,
      smtp_status: '5.1.1',
      subscriber: { id: sent.subscriberIds.get(nouser), email: nouser },
      message_id: refused.message_id,
      type: 'hard',
    });
    const subBounced = await eventsOfType(s.db, a.accountId, 'subscriber.bounced');
    assert.equal(subBounced.length, 1);
    assert.equal(subBounced[0]!.subscriber_id, sent.subscriberIds.get(nouser));
    assert.equal(subBounced[0]!.data.subscriber.status, 'bounced');
    assert.equal(subBounced[0]!.data.campaign_id, sent.campaignId);

    const delivery = await until('the email.bounced delivery', () =>
      receiver.received.find((h) => h.path === '/bounced' && JSON.parse(h.body).account_id === a.accountId),
    );
    const payload = new Webhook(hook.secret).verify(delivery.body, delivery.headers) as any;
    assert.equal(payload.event_type, 'email.bounced');
    assert.deepEqual(
      [payload.data.campaign_id, payload.data.smtp_status, payload.data.subscriber.email],
      [sent.campaignId, '5.1.1', nouser],
    );

    // a provider's report of the same bounce later changes nothing and writes nothing more
    const report = [{ email: nouser, type: 'hard', status: '5.1.1' }];
    const res = await hooks.post(`/hooks/bounces/generic/${a.secret}`, report);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await eventsOfType(s.db, a.accountId, 'subscriber.bounced')).length, 1);
    // the dashboard's rows carry the reason too
    const other = await a.api.get(`/campaigns/${sent.campaignId}/recipients?filter=failed`);
    assert.deepEqual(other.body.data.recipients.map((r: any) => r.failure).sort(), ['blocked', 'bounced']);
  });

  test('4.2.2 on every attempt → failed/expired with the last reply; counts as a soft bounce (the third in a row bounces)', async () => {
    const a = await account();
    const gone = unique('gone');
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [gone]);
    const row = (await rowsByEmail(a.api, sent.campaignId))[gone];
    assert.deepEqual([row.state, row.failure, row.smtp_code, row.smtp_status], ['failed', 'expired', 452, '4.2.2']);
    assert.equal(sink.rcptAttempts.get(gone), 2, 'SEND_MAX_ATTEMPTS');
    assert.equal(await a.status(gone), 'active');
    // two more soft bounces reported by the provider, no delivery in between: the third makes it a bounce
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, genericSoft(gone));
    assert.equal(await a.status(gone), 'active');
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, genericSoft(gone));
    assert.equal(await a.status(gone), 'bounced');
    assert.equal((await eventsOfType(s.db, a.accountId, 'subscriber.bounced')).length, 1);
  });

  test("another account's campaign id is a 404 on /recipients", async () => {
    const a = await account();
    const b = await account();
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [unique('ok')]);
    const res = await b.api.get(`/campaigns/${sent.campaignId}/recipients`);
    assert.equal(res.status, 404);
  });
});

describe('Soft bounces in a row through the bounce hooks', () => {
  test('3 soft bounces in a row (generic hook) → bounced, with email.bounced and subscriber.bounced', async () => {
    const a = await account();
    const email = unique('ok');
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [email]);
    for (let i = 1; i <= 2; i++) {
      const res = await hooks.post(`/hooks/bounces/generic/${a.secret}`, genericSoft(email));
      assert.deepEqual(res.body.data, { received: 1, hard: 0, soft: 1, complaints: 0, unknown: 0 });
      assert.equal(await a.status(email), 'active', `after ${i}`);
    }
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, genericSoft(email));
    assert.equal(await a.status(email), 'bounced');
    const ev = await eventsOfType(s.db, a.accountId, 'email.bounced');
    assert.equal(ev.length, 1);
    assert.deepEqual(
      [ev[0]!.data.campaign_id, ev[0]!.data.type, ev[0]!.data.provider],
      [sent.campaignId, 'hard', 'generic'],
    );
    assert.equal((await eventsOfType(s.db, a.accountId, 'subscriber.bounced')).length, 1);
    const stats = (await a.api.get(`/campaigns/${sent.campaignId}`)).body.data.stats;
    assert.deepEqual(
      [stats.bounces, stats.soft_bounces],
      [1, 3],
      'each report counts on the email, the last one bounced it',
    );
  });

  test('an email delivered in between starts the count again; a quoted 5.7.x does not count', async () => {
    const a = await account();
    const email = unique('ok');
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [email]);
    // the reports name the first campaign's email, so the second one stays delivered
    const aboutFirst = [{ ...genericSoft(email)[0], message_id: sent.messageIds.get(email) }];
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, aboutFirst);
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, aboutFirst);
    await sendToGroup(a.api, sent.groupId); // delivered: no bounce of its own
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, aboutFirst);
    assert.equal(await a.status(email), 'active', 'one in a row since the delivery');
    const blocked = [{ ...aboutFirst[0], status: '5.7.1' }];
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, blocked);
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, blocked);
    assert.equal(await a.status(email), 'active', 'policy refusals say nothing about the mailbox');
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, aboutFirst);
    assert.equal(await a.status(email), 'active', 'two in a row');
    // without a message id the report lands on the latest email, the one delivered: that one bounced too
    await hooks.post(`/hooks/bounces/generic/${a.secret}`, genericSoft(email));
    assert.equal(await a.status(email), 'bounced', 'three in a row');
  });

  test('the generic status is judged by the same rule: a "soft" report quoting 5.1.1 is hard; a bad status is ignored', async () => {
    const a = await account();
    const [one, two] = [unique('ok'), unique('ok')];
    await sendCampaignTo(s.db, a.api, a.accountId, [one, two]);
    const res = await hooks.post(`/hooks/bounces/generic/${a.secret}`, [
      { email: one, type: 'soft', status: '5.1.1' },
      { email: two, type: 'soft', status: 'not a status' },
    ]);
    assert.deepEqual(res.body.data, { received: 2, hard: 1, soft: 1, complaints: 0, unknown: 0 });
    assert.equal(await a.status(one), 'bounced');
    assert.equal(await a.status(two), 'active');
    const tooLong = await hooks.post(`/hooks/bounces/generic/${a.secret}`, [
      { email: one, type: 'soft', status: 'x'.repeat(101) },
    ]);
    assert.equal(tooLong.status, 400);
  });
});

describe('Amazon SES reports judged by their SMTP status', () => {
  const SNS = { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };
  const fixture = (email: string, messageId: string) =>
    readFileSync(new URL('../fixtures/bounces/ses-bounce-transient.json', import.meta.url), 'utf8')
      .replaceAll('jane@example.com', email)
      .replaceAll('MESSAGE_ID', messageId);

  test('a Transient bounce whose status is 5.1.1 is hard: subscriber bounced, email.bounced', async () => {
    const a = await account();
    const email = unique('ok');
    const sent = await sendCampaignTo(s.db, a.api, a.accountId, [email]);
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, fixture(email, sent.messageIds.get(email)!), SNS);
    assert.deepEqual(res.body.data, { received: 1, hard: 1, soft: 0, complaints: 0, unknown: 0 });
    assert.equal(await a.status(email), 'bounced');
    const ev = await eventsOfType(s.db, a.accountId, 'email.bounced');
    assert.deepEqual([ev.length, ev[0]!.data.campaign_id, ev[0]!.data.provider], [1, sent.campaignId, 'ses']);
  });
});
