// POST /hooks/bounces/{provider}/{secret}, fed with each
// provider's documented sample payloads (test/fixtures/bounces): hard bounce → bounced + subscriber.bounced
// + email.bounced, complaint → complained + subscriber.complained, soft bounce → counted only; campaign
// stats follow. Mail goes to the outbox (no SMTP server needed to get a real ledger).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { eventsOfType, sendCampaignTo } from '../../support/campaigns.ts';
import { bounceSecretOf, statusOf } from '../../support/rows.ts';
import { fileScope } from '../../support/scope.ts';
import { client, startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { WORKER_POLL_MS: 100 });
const hooks = client(s.url);

const ADDRESSES = ['jane@example.com', 'john@example.com', 'richard@example.com', 'example@test.com'];

function fixture(name: string, messageId = 'none@localhost'): string {
  return readFileSync(new URL(`../../fixtures/bounces/${name}`, import.meta.url), 'utf8').replaceAll(
    'MESSAGE_ID',
    messageId,
  );
}

async function setup() {
  const { accountId, api } = await s.restAccount();
  const sent = await sendCampaignTo(s.db, api, accountId, ADDRESSES);
  const status = (email: string) => statusOf(s.db, accountId, email);
  const stats = async () => (await api.get(`/campaigns/${sent.campaignId}`)).body.data.stats;
  return { accountId, api, secret: await bounceSecretOf(s.db, accountId), status, stats, ...sent };
}

// SNS posts its JSON as text/plain
const SNS = { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };

describe('Bounce hooks › Amazon SES (SNS)', () => {
  test('SubscriptionConfirmation is recorded for the operator and changes nothing else (the URL is never fetched)', async () => {
    const a = await setup();
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, fixture('ses-subscription-confirmation.json'), {
      ...SNS,
      'x-amz-sns-message-type': 'SubscriptionConfirmation',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = await s.db
      .selectFrom('bounce_hook_confirmations')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.topic_arn, 'arn:aws:sns:us-west-2:123456789012:MyTopic');
    assert.match(rows[0]!.subscribe_url, /^https:\/\/sns\.us-west-2\.amazonaws\.com\/\?Action=ConfirmSubscription/);
    assert.deepEqual(await a.stats().then((st) => [st.bounces, st.complaints]), [0, 0]);
  });

  test('Permanent bounce → subscriber bounced, subscriber.bounced + email.bounced (with campaign_id), stats.bounces; a retry adds nothing', async () => {
    const a = await setup();
    const body = fixture('ses-bounce-permanent.json', a.messageIds.get('jane@example.com'));
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { received: 1, hard: 1, soft: 0, complaints: 0, unknown: 0 });
    assert.equal(await a.status('jane@example.com'), 'bounced');
    assert.equal(await a.status('john@example.com'), 'active');
    const bounced = await eventsOfType(s.db, a.accountId, 'email.bounced');
    assert.equal(bounced.length, 1);
    assert.equal(bounced[0]!.data.campaign_id, a.campaignId);
    assert.equal(bounced[0]!.data.message_id, a.messageIds.get('jane@example.com'));
    assert.equal(bounced[0]!.subscriber_id, a.subscriberIds.get('jane@example.com'));
    assert.equal((await eventsOfType(s.db, a.accountId, 'subscriber.bounced')).length, 1);
    assert.equal((await a.stats()).bounces, 1);
    await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS); // SNS retries deliveries
    assert.equal((await eventsOfType(s.db, a.accountId, 'email.bounced')).length, 1);
    assert.equal((await eventsOfType(s.db, a.accountId, 'subscriber.bounced')).length, 1);
    assert.equal((await a.stats()).bounces, 1);
    const listed = await a.api.get(`/campaigns/${a.campaignId}/recipients?filter=bounced`);
    assert.deepEqual(
      listed.body.data.recipients.map((r: any) => r.subscriber.email),
      ['jane@example.com'],
    );
  });

  test('Transient bounce is counted only: status stays active, no event', async () => {
    const a = await setup();
    // the sample quotes 5.1.1, which makes it hard whatever SES calls it: here it quotes a full mailbox
    const mailboxFull = fixture('ses-bounce-transient.json').replaceAll('5.1.1', '4.2.2').replaceAll('550 ', '452 ');
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, mailboxFull, SNS);
    assert.deepEqual(res.body.data, { received: 1, hard: 0, soft: 1, complaints: 0, unknown: 0 });
    assert.equal(await a.status('jane@example.com'), 'active');
    assert.equal((await eventsOfType(s.db, a.accountId, 'email.bounced')).length, 0);
    const st = await a.stats();
    assert.equal(st.bounces, 0);
    assert.equal(st.soft_bounces, 1);
  });

  test('Complaint → subscriber complained, subscriber.complained, stats.complaints', async () => {
    const a = await setup();
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, fixture('ses-complaint.json'), SNS);
    assert.deepEqual(res.body.data, { received: 1, hard: 0, soft: 0, complaints: 1, unknown: 0 });
    assert.equal(await a.status('richard@example.com'), 'complained');
    const ev = await eventsOfType(s.db, a.accountId, 'subscriber.complained');
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.data.campaign_id, a.campaignId);
    assert.equal((await a.stats()).complaints, 1);
  });
});

describe('Bounce hooks › SendGrid, Postmark, generic', () => {
  test('SendGrid event batch: bounce (matched by smtp-id) → bounced, deferred → soft, spamreport → complained, others ignored', async () => {
    const a = await setup();
    const res = await hooks.post(
      `/hooks/bounces/sendgrid/${a.secret}`,
      fixture('sendgrid-events.json', a.messageIds.get('example@test.com')),
      { 'content-type': 'application/json' },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { received: 3, hard: 1, soft: 1, complaints: 1, unknown: 0 });
    assert.equal(await a.status('example@test.com'), 'bounced');
    assert.equal(await a.status('richard@example.com'), 'complained');
    const st = await a.stats();
    assert.deepEqual([st.bounces, st.soft_bounces, st.complaints], [1, 1, 1]);
  });

  test('Postmark bounce webhook: HardBounce → bounced; SoftBounce counted; SpamComplaint → complained', async () => {
    const a = await setup();
    const hard = await hooks.post(`/hooks/bounces/postmark/${a.secret}`, fixture('postmark-bounce.json'), {
      'content-type': 'application/json',
    });
    assert.deepEqual(hard.body.data, { received: 1, hard: 1, soft: 0, complaints: 0, unknown: 0 });
    assert.equal(await a.status('john@example.com'), 'bounced');
    const soft = await hooks.post(`/hooks/bounces/postmark/${a.secret}`, fixture('postmark-soft-bounce.json'), {
      'content-type': 'application/json',
    });
    assert.equal(soft.body.data.soft, 1);
    const spam = await hooks.post(`/hooks/bounces/postmark/${a.secret}`, fixture('postmark-spam-complaint.json'), {
      'content-type': 'application/json',
    });
    assert.equal(spam.body.data.complaints, 1);
    assert.equal(await a.status('richard@example.com'), 'complained');
    assert.equal((await eventsOfType(s.db, a.accountId, 'email.bounced')).length, 1);
  });

  test('Generic JSON {email, type, message_id?}: one of each kind; an unknown address is counted as unknown', async () => {
    const a = await setup();
    const items = JSON.parse(fixture('generic.json', a.messageIds.get('jane@example.com')));
    items.push({ email: 'nobody@nowhere.test', type: 'hard' });
    const res = await hooks.post(`/hooks/bounces/generic/${a.secret}`, items);
    assert.deepEqual(res.body.data, { received: 4, hard: 1, soft: 1, complaints: 1, unknown: 1 });
    assert.deepEqual(
      [await a.status('jane@example.com'), await a.status('john@example.com'), await a.status('richard@example.com')],
      ['bounced', 'active', 'complained'],
    );
  });

  test('Generic JSON with a bad type → 400 with the field; nothing changes', async () => {
    const a = await setup();
    const res = await hooks.post(`/hooks/bounces/generic/${a.secret}`, { email: 'jane@example.com', type: 'maybe' });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.ok(res.body.data['0.type'], JSON.stringify(res.body));
    assert.equal(await a.status('jane@example.com'), 'active');
  });

  test('Unknown secret or provider → 404; another account secret never touches this account', async () => {
    const a = await setup();
    const other = await s.newAccount();
    const otherSecret = (
      await s.db
        .selectFrom('accounts')
        .select('bounce_secret')
        .where('id', '=', other.accountId)
        .executeTakeFirstOrThrow()
    ).bounce_secret;
    assert.equal(
      (await hooks.post(`/hooks/bounces/generic/not-the-secret`, { email: 'jane@example.com', type: 'hard' })).status,
      404,
    );
    assert.equal(
      (await hooks.post(`/hooks/bounces/mailchimp/${a.secret}`, { email: 'jane@example.com', type: 'hard' })).status,
      404,
    );
    const res = await hooks.post(`/hooks/bounces/generic/${otherSecret}`, { email: 'jane@example.com', type: 'hard' });
    assert.deepEqual(res.body.data, { received: 1, hard: 0, soft: 0, complaints: 0, unknown: 1 });
    assert.equal(await a.status('jane@example.com'), 'active');
  });
});
