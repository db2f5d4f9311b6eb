// the automation send_email step has the same "ledger-like accounting" as campaigns. End to end: a
// run delivers into a real SMTP sink, the test posts each provider's documented sample report
// (test/fixtures/bounces) naming that email's Message-ID to POST /hooks/bounces/{provider}/{secret}, and
// checks that the report lands on the automation email, not on a campaign: email.bounced / subscriber.*
// carry {automation_id, step, run_id} (also as a signed webhook), the automation's stats count bounces,
// complaints and soft bounces, and the run stops before its next email. Unsubscribes through an automation
// email's link count in its stats. Reports that name no automation email are credited as before, and bad
// input at the hook stays a 4xx that changes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { mcpClient } from '../http/mcp/client.ts';
import { automationServer, uniqueEmail } from '../support/automations.ts';
import { eventsOfType, sendCampaignTo } from '../support/campaigns.ts';
import { startReceiver } from '../support/receiver.ts';
import { bounceSecretOf, statusOf } from '../support/rows.ts';
import { client } from '../support/server.ts';
import { until } from '../support/until.ts';

const { s, mailTo } = await automationServer({
  WORKER_POLL_MS: 200,
  ALLOW_PRIVATE_WEBHOOK_URLS: true,
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
});
const hooks = client(s.url);
const receiver = await startReceiver();
const received = receiver.received;
const receiverUrl = `${receiver.base}/hook`;

let n = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A provider's documented sample with its example addresses and MESSAGE_ID replaced. */
function fixture(name: string, replace: Record<string, string>): string {
  let text = readFileSync(new URL(`../fixtures/bounces/${name}`, import.meta.url), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.replaceAll(from, to);
  return text;
}
// SNS posts its JSON as text/plain
const SNS = { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };
const JSON_BODY = { 'content-type': 'application/json' };

async function account() {
  const a = await s.restAccount();
  const status = (email: string) => statusOf(s.db, a.accountId, email);
  return { ...a, secret: await bounceSecretOf(s.db, a.accountId), status };
}
type Account = Awaited<ReturnType<typeof account>>;

// an email, a long wait (30 s at this time scale; tests end it by hand), a second email
const SERIES = [
  { type: 'send_email', subject: 'Welcome', content_html: '<p>Welcome</p>' },
  { type: 'delay', amount: 30, unit: 'days' },
  { type: 'send_email', subject: 'Day thirty', content_html: '<p>Still here?</p>' },
];

async function createAutomation(a: Account, steps: unknown[] = SERIES, name = 'Series') {
  const group = (await a.api.post('/groups', { name: `G ${++n}` })).body.data as { id: string };
  const r = await a.api.post('/automations', { name, trigger: { type: 'joined_group', group_id: group.id }, steps });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { id: r.body.data.id as string, groupId: group.id };
}

/** The automation emails delivered to `email`, with their bare Message-IDs. */
function automationMail(email: string, automationId: string) {
  return mailTo(email)
    .filter((m) => m.parsed?.headers.get('x-mailgrove-automation') === automationId)
    .map((m) => ({ message: m, messageId: m.parsed!.messageId!.replace(/^<|>$/g, '') }));
}

/** Puts the subscriber into the automation's group and waits for its first email; returns its run and Message-ID. */
async function deliver(a: Account, auto: { id: string; groupId: string }, sub: { id: string; email: string }) {
  const joined = await a.api.post(`/groups/${auto.groupId}/subscribers/${sub.id}`);
  assert.ok(joined.status < 300, JSON.stringify(joined.body));
  const [first] = await until(
    'the automation email',
    () => automationMail(sub.email, auto.id).length >= 1 && automationMail(sub.email, auto.id),
  );
  const run = await s.db
    .selectFrom('automation_runs')
    .select('id')
    .where('automation_id', '=', auto.id)
    .where('subscriber_id', '=', sub.id)
    .executeTakeFirstOrThrow();
  // the report can only name an email the run has recorded as sent
  await until('email.sent recorded', async () =>
    (await eventsOf(a.accountId, 'email.sent')).some((e) => e.data.message_id === first!.messageId),
  );
  return { runId: run.id, messageId: first!.messageId, message: first!.message };
}

async function newSubscriber(a: Account, name: string) {
  const r = await a.api.post('/subscribers', { email: uniqueEmail(name) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as { id: string; email: string };
}

const eventsOf = (accountId: string, type: string) => eventsOfType(s.db, accountId, type);

const statsOf = async (a: Account, automationId: string) =>
  (await a.api.get(`/automations/${automationId}`)).body.data.stats;
const pick = (st: Record<string, any>, ...keys: string[]) => Object.fromEntries(keys.map((k) => [k, st[k]]));
const ACCOUNTING = ['emails_sent', 'unsubscribes', 'bounces', 'complaints', 'soft_bounces'];

/** Ends the long delay now; resolves with the run once it has stopped (or finished). */
async function passDelayAndSettle(a: Account, automationId: string, runId: string) {
  // the delay step commits after email.sent, in the run's next transaction: wait for it, or it would set
  // next_run_at after this
  await until('the run waiting on its delay', async () => {
    const r = await s.db
      .selectFrom('automation_runs')
      .select('history')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    return r.history.at(-1)?.result === 'waiting';
  });
  await s.db
    .updateTable('automation_runs')
    .set({ next_run_at: new Date() })
    .where('id', '=', runId)
    .where('status', '=', 'active')
    .execute();
  return until('the run over', async () => {
    const runs = (await a.api.get(`/automations/${automationId}/activity`)).body.data.runs as any[];
    const run = runs.find((r) => r.id === runId);
    return run?.status !== 'active' && run;
  });
}

describe('Automation bounces › reports naming an automation email are credited to it', () => {
  test('Amazon SES permanent bounce: subscriber bounced; email.bounced / subscriber.bounced carry automation_id, step, run_id (and reach a webhook); stats.bounces; not the campaign; a retry adds nothing; the run stops', async () => {
    const a = await account();
    const hook = (await a.api.post('/webhooks', { name: 'bounces', url: receiverUrl, events: ['email.bounced'] })).body
      .data as { id: string; secret: string };
    // the subscriber got a campaign email first: once the bounce was credited to it
    const email = uniqueEmail('ses-bounce');
    const campaign = await sendCampaignTo(s.db, a.api, a.accountId, [email]);
    const sub = { id: campaign.subscriberIds.get(email)!, email };
    const auto = await createAutomation(a);
    const { runId, messageId } = await deliver(a, auto, sub);
    assert.notEqual(messageId, campaign.messageIds.get(email));

    const body = fixture('ses-bounce-permanent.json', { 'jane@example.com': email, MESSAGE_ID: messageId });
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { received: 1, hard: 1, soft: 0, complaints: 0, unknown: 0 });
    assert.equal(await a.status(email), 'bounced');

    const source = { automation_id: auto.id, step: '0', run_id: runId };
    const detail = `smtp; 550 5.1.1 <${email}>... User`;
    const bounced = await eventsOf(a.accountId, 'email.bounced');
    assert.equal(bounced.length, 1);
    assert.deepEqual(bounced[0]!.data, {
      ...source,
      provider: 'ses',
      detail,
      subscriber: { id: sub.id, email },
      message_id: messageId,
      type: 'hard',
    });
    assert.equal(bounced[0]!.subscriber_id, sub.id);
    const [subBounced] = await eventsOf(a.accountId, 'subscriber.bounced');
    assert.deepEqual(
      { ...subBounced!.data, subscriber: undefined },
      { ...source, provider: 'ses', detail, subscriber: undefined },
    );
    assert.equal(subBounced!.data.subscriber.status, 'bounced');

    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 1,
      unsubscribes: 0,
      bounces: 1,
      complaints: 0,
      soft_bounces: 0,
    });
    const campaignStats = (await a.api.get(`/campaigns/${campaign.campaignId}`)).body.data.stats;
    assert.deepEqual([campaignStats.bounces, campaignStats.complaints], [0, 0], 'the campaign email did not bounce');

    // SNS retries its deliveries: nothing more is written or counted
    assert.equal((await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS)).status, 200);
    assert.equal((await eventsOf(a.accountId, 'email.bounced')).length, 1);
    assert.equal((await eventsOf(a.accountId, 'subscriber.bounced')).length, 1);
    assert.equal((await statsOf(a, auto.id)).bounces, 1);

    // the webhook gets the automation's fields, signed like every delivery
    const delivery = await until('the email.bounced delivery', () =>
      received.find((h) => JSON.parse(h.body).account_id === a.accountId),
    );
    const payload = new Webhook(hook.secret).verify(delivery.body, delivery.headers) as any;
    assert.equal(payload.event_type, 'email.bounced');
    assert.deepEqual(
      [payload.data.automation_id, payload.data.step, payload.data.run_id, payload.data.message_id],
      [auto.id, '0', runId, messageId],
    );

    // the run stops before its next email
    const run = await passDelayAndSettle(a, auto.id, runId);
    assert.equal(run.status, 'canceled');
    assert.deepEqual(run.history.at(-1), {
      ...run.history.at(-1),
      step: '2',
      type: 'send_email',
      result: 'canceled',
      reason: 'subscriber bounced',
    });
    await sleep(300);
    assert.equal(automationMail(email, auto.id).length, 1, 'the second email is never sent');
    const st = await statsOf(a, auto.id);
    assert.deepEqual(pick(st, 'active', 'canceled', 'emails_sent', 'bounces'), {
      active: 0,
      canceled: 1,
      emails_sent: 1,
      bounces: 1,
    });

    // the other faces read the same stats
    const listed = (await a.api.get('/automations')).body.data.automations.find((x: any) => x.id === auto.id);
    assert.equal(listed.stats.bounces, 1);
    const mcp = mcpClient(s.url, (await s.newKey(a.accountId, ['automations:read'])).key);
    assert.equal((await mcp.call('get_automation', { automation_id: auto.id })).body.data.stats.bounces, 1);
    const viaList = (await mcp.call('list_automations', {})).body.data.find((x: any) => x.id === auto.id);
    assert.equal(viaList.stats.bounces, 1);
  });

  test('Amazon SES complaint: subscriber complained, subscriber.complained carries automation_id, step, run_id; stats.complaints; a retry adds nothing; the run stops', async () => {
    const a = await account();
    const auto = await createAutomation(a);
    const sub = await newSubscriber(a, 'ses-complaint');
    const { runId, messageId } = await deliver(a, auto, sub);

    const body = fixture('ses-complaint.json', { 'richard@example.com': sub.email, MESSAGE_ID: messageId });
    const res = await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { received: 1, hard: 0, soft: 0, complaints: 1, unknown: 0 });
    assert.equal(await a.status(sub.email), 'complained');
    const complained = await eventsOf(a.accountId, 'subscriber.complained');
    assert.equal(complained.length, 1);
    const { subscriber, ...origin } = complained[0]!.data;
    assert.deepEqual(origin, { automation_id: auto.id, step: '0', run_id: runId, provider: 'ses', detail: 'abuse' });
    assert.deepEqual([subscriber.id, subscriber.status], [sub.id, 'complained']);
    assert.equal((await eventsOf(a.accountId, 'email.bounced')).length, 0, 'a complaint is no bounce');
    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 1,
      unsubscribes: 0,
      bounces: 0,
      complaints: 1,
      soft_bounces: 0,
    });

    await hooks.post(`/hooks/bounces/ses/${a.secret}`, body, SNS);
    assert.equal((await eventsOf(a.accountId, 'subscriber.complained')).length, 1);
    assert.equal((await statsOf(a, auto.id)).complaints, 1);

    const run = await passDelayAndSettle(a, auto.id, runId);
    assert.equal(run.status, 'canceled');
    assert.equal(run.history.at(-1).reason, 'subscriber complained');
    await sleep(300);
    assert.equal(automationMail(sub.email, auto.id).length, 1);
  });

  test('SendGrid event batch (smtp-id) and generic reports (message_id, with or without <>) land on automation emails: bounce, deferred and soft counted apart', async () => {
    const a = await account();
    const auto = await createAutomation(a);
    const [one, two] = [await newSubscriber(a, 'sendgrid'), await newSubscriber(a, 'generic')];
    const first = await deliver(a, auto, one);
    const second = await deliver(a, auto, two);

    // the sample: processed, deferred, delivered, open, bounce for example@test.com, a spam report for an address we do not know
    const batch = fixture('sendgrid-events.json', {
      'example@test.com': one.email,
      MESSAGE_ID: first.messageId,
      'richard@example.com': uniqueEmail('stranger'),
    });
    const res = await hooks.post(`/hooks/bounces/sendgrid/${a.secret}`, batch, JSON_BODY);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { received: 3, hard: 1, soft: 1, complaints: 0, unknown: 1 }); // the stranger's spam report counts as unknown only
    assert.equal(await a.status(one.email), 'bounced');
    const [bounced] = await eventsOf(a.accountId, 'email.bounced');
    assert.deepEqual(
      pick(bounced!.data, 'automation_id', 'step', 'run_id', 'provider', 'message_id', 'type', 'detail'),
      {
        automation_id: auto.id,
        step: '0',
        run_id: first.runId,
        provider: 'sendgrid',
        message_id: first.messageId,
        type: 'hard',
        detail: '500 unknown recipient',
      },
    );

    const soft = await hooks.post(`/hooks/bounces/generic/${a.secret}`, {
      email: two.email,
      type: 'soft',
      message_id: second.messageId,
    });
    assert.deepEqual(soft.body.data, { received: 1, hard: 0, soft: 1, complaints: 0, unknown: 0 });
    assert.equal(await a.status(two.email), 'active', 'a soft bounce is only counted');
    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 2,
      unsubscribes: 0,
      bounces: 1,
      complaints: 0,
      soft_bounces: 2,
    });

    const hard = await hooks.post(`/hooks/bounces/generic/${a.secret}`, [
      { email: two.email.toUpperCase(), type: 'hard', message_id: `<${second.messageId}>` },
    ]);
    assert.equal(hard.body.data.hard, 1);
    const events = await eventsOf(a.accountId, 'email.bounced');
    assert.equal(events.length, 2);
    assert.deepEqual(pick(events[1]!.data, 'automation_id', 'run_id', 'provider', 'message_id'), {
      automation_id: auto.id,
      run_id: second.runId,
      provider: 'generic',
      message_id: second.messageId,
    });
    assert.deepEqual(pick(await statsOf(a, auto.id), 'bounces', 'soft_bounces'), { bounces: 2, soft_bounces: 2 });
  });

  test("a report naming no automation email behaves as before: an unknown Message-ID, another subscriber's, or none (Postmark) goes to the latest campaign email", async () => {
    const a = await account();
    const [x, y, z] = [uniqueEmail('unknown-id'), uniqueEmail('other-id'), uniqueEmail('postmark')];
    const campaign = await sendCampaignTo(s.db, a.api, a.accountId, [x, y, z]);
    const auto = await createAutomation(a);
    const subs = [x, y, z].map((email) => ({ id: campaign.subscriberIds.get(email)!, email }));
    const sent = [];
    for (const sub of subs) sent.push(await deliver(a, auto, sub));

    const r1 = await hooks.post(`/hooks/bounces/generic/${a.secret}`, {
      email: x,
      type: 'hard',
      message_id: 'not-ours@elsewhere.test',
    });
    assert.equal(r1.body.data.hard, 1);
    // z's automation email named in a report about y: the Message-ID is not y's, so it does not count on z's email
    const r2 = await hooks.post(`/hooks/bounces/generic/${a.secret}`, {
      email: y,
      type: 'complaint',
      message_id: sent[2]!.messageId,
    });
    assert.equal(r2.body.data.complaints, 1);
    // Postmark's MessageID is Postmark's own, not ours: there is nothing to match an automation email with
    const r3 = await hooks.post(
      `/hooks/bounces/postmark/${a.secret}`,
      fixture('postmark-bounce.json', { 'john@example.com': z }),
      JSON_BODY,
    );
    assert.equal(r3.body.data.hard, 1);

    assert.deepEqual([await a.status(x), await a.status(y), await a.status(z)], ['bounced', 'complained', 'bounced']);
    const bounced = await eventsOf(a.accountId, 'email.bounced');
    assert.deepEqual(
      bounced.map((e) => [e.data.campaign_id, e.data.automation_id, e.data.message_id]),
      [
        [campaign.campaignId, undefined, campaign.messageIds.get(x)],
        [campaign.campaignId, undefined, campaign.messageIds.get(z)],
      ],
    );
    const [complained] = await eventsOf(a.accountId, 'subscriber.complained');
    assert.equal(complained!.data.campaign_id, campaign.campaignId);
    assert.equal(complained!.data.automation_id, undefined);
    const cs = (await a.api.get(`/campaigns/${campaign.campaignId}`)).body.data.stats;
    assert.deepEqual([cs.bounces, cs.complaints], [2, 1]);
    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 3,
      unsubscribes: 0,
      bounces: 0,
      complaints: 0,
      soft_bounces: 0,
    });
  });
});

describe('Automation bounces › unsubscribes count in automation stats', () => {
  test("the unsubscribe link of an automation email counts once in that automation's stats (REST, get_automation, list_automations), not in another's; repeating it changes nothing", async () => {
    const a = await account();
    // two emails in a row: the unsubscribe still counts once
    const twice = [SERIES[0], { ...SERIES[2], subject: 'Right after' }];
    const auto = await createAutomation(a, twice, 'Leaves from here');
    const sub = await newSubscriber(a, 'leaver');
    await deliver(a, auto, sub);
    await until('both emails', () => automationMail(sub.email, auto.id).length === 2);
    // another automation that mailed the same subscriber
    const other = await createAutomation(a, [SERIES[0]], 'Bystander');
    await deliver(a, other, sub);
    await until(
      'both runs completed',
      async () => (await statsOf(a, auto.id)).completed === 1 && (await statsOf(a, other.id)).completed === 1,
    );

    const html = automationMail(sub.email, auto.id)[0]!.message.parsed!.html as string;
    const link = /href="(http[^"]+\/u\/[^"]+)"/.exec(html)![1]!;
    const oneClick = () =>
      fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
    assert.equal((await oneClick()).status, 200);
    assert.equal(await a.status(sub.email), 'unsubscribed');
    const [ev] = await eventsOf(a.accountId, 'subscriber.unsubscribed');
    assert.equal(ev!.data.automation_id, auto.id);

    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 2,
      unsubscribes: 1,
      bounces: 0,
      complaints: 0,
      soft_bounces: 0,
    });
    assert.equal((await statsOf(a, other.id)).unsubscribes, 0);
    assert.equal((await oneClick()).status, 200); // mail clients retry
    assert.equal((await statsOf(a, auto.id)).unsubscribes, 1);

    const listed = (await a.api.get('/automations')).body.data.automations;
    assert.deepEqual(Object.fromEntries(listed.map((x: any) => [x.id, x.stats.unsubscribes])), {
      [auto.id]: 1,
      [other.id]: 0,
    });
    const mcp = mcpClient(s.url, (await s.newKey(a.accountId, ['automations:read'])).key);
    assert.equal((await mcp.call('get_automation', { automation_id: auto.id })).body.data.stats.unsubscribes, 1);
    const viaList = (await mcp.call('list_automations', {})).body.data;
    assert.deepEqual(Object.fromEntries(viaList.map((x: any) => [x.id, x.stats.unsubscribes])), {
      [auto.id]: 1,
      [other.id]: 0,
    });
  });
});

describe('Automation bounces › bad input at the hook', () => {
  test('malformed reports are a 4xx and change nothing, even when they name an automation email', async () => {
    const a = await account();
    const auto = await createAutomation(a);
    const sub = await newSubscriber(a, 'garbage');
    const { messageId } = await deliver(a, auto, sub);
    const sesNote = JSON.parse(
      fixture('ses-bounce-permanent.json', { 'jane@example.com': sub.email, MESSAGE_ID: messageId }),
    );

    const bad: [string, unknown, Record<string, string>?][] = [
      ['ses', '{"Type": "Notification", "Message": ', SNS], // truncated JSON
      ['ses', JSON.stringify({ ...sesNote, Message: 'not json {' }), SNS],
      ['ses', JSON.stringify({ hello: 'world' }), SNS], // not an SNS/SES notification
      ['sendgrid', JSON.stringify({ email: sub.email, event: 'bounce', 'smtp-id': `<${messageId}>` }), JSON_BODY], // not an array
      ['postmark', JSON.stringify({ RecordType: 'Bounce', Type: 'HardBounce' }), JSON_BODY], // no Email
      ['generic', { email: sub.email, type: 'maybe', message_id: messageId }],
      ['generic', { email: sub.email, type: 'hard', message_id: 42 }],
      ['generic', { email: sub.email, type: 'hard', message_id: 'x'.repeat(999) }],
      ['generic', [{ email: sub.email, type: 'hard', message_id: messageId }, { type: 'hard' }]], // one bad item refuses the batch
      ['generic', 'null', JSON_BODY],
    ];
    for (const [provider, body, headers] of bad) {
      const res = await hooks.post(`/hooks/bounces/${provider}/${a.secret}`, body, headers);
      assert.ok(
        res.status >= 400 && res.status < 500,
        `${provider} ${String(JSON.stringify(body)).slice(0, 80)}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      assert.equal(res.body.success, false, JSON.stringify(res.body));
    }
    // an unknown secret is a 404 even for a well-formed report of this email
    assert.equal(
      (await hooks.post(`/hooks/bounces/ses/not-the-secret-at-all`, JSON.stringify(sesNote), SNS)).status,
      404,
    );

    assert.equal(await a.status(sub.email), 'active');
    assert.equal((await eventsOf(a.accountId, 'email.bounced')).length, 0);
    assert.deepEqual(pick(await statsOf(a, auto.id), ...ACCOUNTING), {
      emails_sent: 1,
      unsubscribes: 0,
      bounces: 0,
      complaints: 0,
      soft_bounces: 0,
    });
  });
});
