// the automation send_email step goes "through the same renderer, transport, ledger-like accounting
// and unsubscribe/tracking as campaigns". End to end: a run sends into a real SMTP
// sink, the test fetches the pixel and clicks the rewritten link of the parsed message, and checks the
// redirect, the email.opened / email.clicked events (with automation_id + step, delivered to a signed
// webhook), the automation's stats, the account's tracking switch and that tampered tokens are refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { automationTrackToken, readTrackToken, trackToken } from '../../src/mail/tracking.ts';
import { unsubscribeToken } from '../../src/mail/unsubscribe.ts';
import { mcpClient } from '../http/mcp/client.ts';
import { automationServer, createAutomation, uniqueEmail } from '../support/automations.ts';
import { sendCampaignTo } from '../support/campaigns.ts';
import { startReceiver } from '../support/receiver.ts';
import type { ApiClient } from '../support/server.ts';
import { until } from '../support/until.ts';

const { s, sink, mailTo } = await automationServer({
  WORKER_POLL_MS: 200,
  ALLOW_PRIVATE_WEBHOOK_URLS: true,
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
});
// a webhook receiver on loopback: every POST body and its headers
const receiver = await startReceiver();
const hooks = receiver.received;
const receiverUrl = `${receiver.base}/hook`;

let n = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const htmlOf = (email: string, i = 0) => mailTo(email)[i]!.parsed!.html as string;
const manual = (url: string) => fetch(url, { redirect: 'manual' });

/** An automation on a new group, and one subscriber joining it; resolves once its first email arrived. */
async function welcome(api: ApiClient, steps: unknown[], name = 'welcome') {
  const group = (await api.post('/groups', { name: `G ${++n}` })).body.data;
  const auto = await createAutomation(api, { trigger: { type: 'joined_group', group_id: group.id }, steps });
  const email = uniqueEmail(name);
  const sub = (await api.post('/subscribers', { email, group_ids: [group.id] })).body.data as {
    id: string;
    email: string;
  };
  await until('the first automation email', () => mailTo(email).length >= 1);
  return { auto, sub, email, group };
}

const links = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
const clickLink = (html: string) => links(html).find((l) => l.includes('/t/c/'))!;
// an <img> in a message with images of its own, a cell's background otherwise
const pixelOf = (html: string) => /(?:<img src|background)="([^"]*\/t\/o\/[^"]+)"/.exec(html)?.[1];

async function eventsOf(accountId: string, type: string) {
  return s.db
    .selectFrom('events')
    .select(['seq', 'subscriber_id', 'data'])
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .orderBy('seq')
    .execute();
}

/** Resolves once the automation trigger loop has read past every event written so far. */
async function triggersCaughtUp() {
  const { max } = await s.db
    .selectFrom('events')
    .select((eb) => eb.fn.max('seq').as('max'))
    .executeTakeFirstOrThrow();
  await until('the trigger loop past the last event', async () => {
    const c = await s.db
      .selectFrom('event_cursors')
      .select('last_seq')
      .where('name', '=', 'automations')
      .executeTakeFirst();
    return c && Number(c.last_seq) >= Number(max);
  });
}

const TRACKED_STEPS = [
  {
    type: 'send_email',
    subject: 'Welcome',
    content_html:
      '<html><body><p>Hi {{ subscriber.email }}</p><a href="https://grove.example/start?a=1&amp;b=2">Start</a> ' +
      '<a href="https://grove.example/u/{{ subscriber.id }}">Profile</a> <a href="mailto:help@grove.example">Help</a> <a href="{{ unsubscribe_url }}">Leave</a></body></html>',
  },
  { type: 'delay', amount: 1, unit: 'days' },
  {
    type: 'send_email',
    subject: 'Day two',
    content_html: '<p><a href="https://grove.example/day-two">Day two</a></p>',
  },
];

describe('Automation tracking › the send_email step is tracked like a campaign email', () => {
  test('pixel and rewritten links in the delivered email; opening and clicking write email.opened / email.clicked with automation_id + step, a webhook gets them, stats count them', async () => {
    const { accountId, api } = await s.restAccount();
    const hook = (
      await api.post('/webhooks', { name: 'engagement', url: receiverUrl, events: ['email.opened', 'email.clicked'] })
    ).body.data as { id: string; secret: string };
    const { auto, sub, email } = await welcome(api, TRACKED_STEPS);
    const html = htmlOf(email);

    // what the message carries: the literal link rewritten, personalised / mailto / unsubscribe links left alone
    const hrefs = links(html);
    assert.ok(!html.includes('https://grove.example/start'), 'the literal link is not exposed');
    assert.equal(hrefs.filter((l) => l.startsWith(`${s.url}/t/c/`)).length, 1, hrefs.join('\n'));
    assert.ok(
      hrefs.includes(`https://grove.example/u/${sub.id}`),
      'a Liquid link differs per subscriber and is not tracked',
    );
    assert.ok(hrefs.includes('mailto:help@grove.example'));
    assert.ok(
      hrefs.some((l) => /\/u\/[\w-]+$/.test(l) && l.startsWith(s.url)),
      'the unsubscribe link stays direct',
    );
    const pixel = pixelOf(html);
    assert.ok(pixel?.startsWith(`${s.url}/t/o/`), html);
    const token = pixel!.split('/t/o/')[1]!;
    assert.ok(clickLink(html).startsWith(`${s.url}/t/c/${token}/`), 'the pixel and the links share one token');

    // the token names this email's row: automation, run, step, subscriber
    const target = readTrackToken(s.config.secret, token);
    assert.ok(target && 'automation_email_id' in target, JSON.stringify(target));
    const row = await s.db
      .selectFrom('automation_emails')
      .selectAll()
      .where('id', '=', target.automation_email_id)
      .executeTakeFirstOrThrow();
    const run = await s.db
      .selectFrom('automation_runs')
      .select('id')
      .where('automation_id', '=', auto.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.automation_id, row.run_id, row.step, row.subscriber_id], [auto.id, run.id, '0', sub.id]);

    const gif = await fetch(pixel!);
    assert.equal(gif.status, 200);
    assert.equal(gif.headers.get('content-type'), 'image/gif');
    await fetch(pixel!);
    const redirect = await manual(clickLink(html));
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), 'https://grove.example/start?a=1&b=2');

    const sent = await until('email.sent recorded', async () => (await eventsOf(accountId, 'email.sent'))[0]);
    const source = { automation_id: auto.id, step: '0', run_id: run.id };
    assert.deepEqual(sent.data, {
      ...source,
      subscriber: { id: sub.id, email: sub.email },
      message_id: sent.data.message_id,
    });
    const opened = await eventsOf(accountId, 'email.opened');
    assert.equal(opened.length, 2);
    assert.deepEqual(opened[0]!.data, {
      ...source,
      subscriber: { id: sub.id, email: sub.email },
      message_id: sent.data.message_id,
    });
    assert.equal(opened[0]!.subscriber_id, sub.id);
    const [clicked] = await eventsOf(accountId, 'email.clicked');
    assert.deepEqual(clicked!.data, {
      ...source,
      subscriber: { id: sub.id, email: sub.email },
      message_id: sent.data.message_id,
      url: 'https://grove.example/start?a=1&b=2',
    });

    // webhooks fire for them, signed like every delivery
    const delivered = await until('three signed deliveries', () => {
      const mine = hooks.filter((h) => JSON.parse(h.body).account_id === accountId);
      return mine.length >= 3 && mine;
    });
    const payloads = delivered.map((h) => new Webhook(hook.secret).verify(h.body, h.headers) as any);
    assert.deepEqual(payloads.map((p) => p.event_type).sort(), ['email.clicked', 'email.opened', 'email.opened']);
    assert.ok(
      payloads.every((p) => p.data.automation_id === auto.id && p.data.step === '0' && p.data.subscriber.id === sub.id),
    );

    // the second email (after the delay) has its own token and link set
    await until('the second email', () => mailTo(email).length === 2);
    const second = htmlOf(email, 1);
    assert.notEqual(pixelOf(second), pixel);
    assert.equal((await manual(clickLink(second))).headers.get('location'), 'https://grove.example/day-two');
    const secondClick = await until('the second click', async () => (await eventsOf(accountId, 'email.clicked'))[1]);
    assert.equal(secondClick.data.step, '2');

    // the sink holds the second email, and its click may be recorded, a moment before the worker's
    // transaction records the send (email.sent and the automation's emails_sent together): read after it
    await until('the second email.sent', async () => (await eventsOf(accountId, 'email.sent')).length === 2);

    // stats as campaigns count them: the first email's two pixel loads, and the second email opened by its
    // click alone (a click counts as one open, so totals are never below uniques); both clicked
    const want = { emails_sent: 2, opens: 3, unique_opens: 2, clicks: 2, unique_clicks: 2 };
    const got = (await api.get(`/automations/${auto.id}`)).body.data.stats;
    assert.deepEqual(
      {
        emails_sent: got.emails_sent,
        opens: got.opens,
        unique_opens: got.unique_opens,
        clicks: got.clicks,
        unique_clicks: got.unique_clicks,
      },
      want,
    );
    const listed = (await api.get('/automations')).body.data.automations.find((a: any) => a.id === auto.id);
    assert.equal(listed.stats.unique_clicks, 2);
    const { key } = await s.newKey(accountId, ['automations:read']);
    const viaMcp = (await mcpClient(s.url, key).call('get_automation', { automation_id: auto.id })).body.data.stats;
    assert.deepEqual([viaMcp.opens, viaMcp.unique_opens, viaMcp.clicks, viaMcp.unique_clicks], [3, 2, 2, 2]);
  });

  test('tampered tokens are refused (click 404, pixel counts nothing), never a 5xx or a redirect', async () => {
    const { accountId, api } = await s.restAccount();
    const { auto, email } = await welcome(api, [TRACKED_STEPS[0]]);
    const html = htmlOf(email);
    const click = clickLink(html);
    const [token, link] = click.split('/t/c/')[1]!.split('/') as [string, string];
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const forged = [
      `${s.url}/t/c/${flipped}/${link}`, // one character changed
      `${s.url}/t/c/${token.slice(0, -2)}/${link}`, // truncated
      `${s.url}/t/c/${token}/99`, // an index this email does not store
      `${s.url}/t/c/${token}/-1`,
      `${s.url}/t/c/${token}/https%3A%2F%2Fevil.test`,
      `${s.url}/t/c/${token}/${'9'.repeat(40)}`,
      `${s.url}/t/c/${'A'.repeat(500)}/0`,
      `${s.url}/t/c/${automationTrackToken('another-secret', crypto.randomUUID())}/0`, // signed with another secret
      `${s.url}/t/c/${automationTrackToken(s.config.secret, crypto.randomUUID())}/0`, // well signed, names no email
      `${s.url}/t/c/${unsubscribeToken(s.config.secret, accountId, crypto.randomUUID())}/0`, // a token of another purpose
      `${s.url}/t/c/${token}`,
    ];
    for (const url of forged) {
      const res = await manual(url);
      assert.ok(res.status === 404 || res.status === 400, `${url}: ${res.status}`);
      assert.equal(res.headers.get('location'), null, url);
    }
    for (const url of [
      `${s.url}/t/o/${flipped}`,
      `${s.url}/t/o/${automationTrackToken(s.config.secret, crypto.randomUUID())}`,
      `${s.url}/t/o/%00`,
    ]) {
      const res = await fetch(url);
      assert.ok(res.status < 500, `${url}: ${res.status}`);
    }
    assert.equal((await eventsOf(accountId, 'email.opened')).length, 0);
    assert.equal((await eventsOf(accountId, 'email.clicked')).length, 0);
    const stats = (await api.get(`/automations/${auto.id}`)).body.data.stats;
    assert.deepEqual([stats.opens, stats.clicks], [0, 0]);
    // and the real link still works
    assert.equal((await manual(click)).status, 302);
  });

  test('tokens: an automation token names its email row, a campaign token keeps its format, neither reads as the other', () => {
    const emailId = crypto.randomUUID();
    const [c, sub] = [crypto.randomUUID(), crypto.randomUUID()];
    assert.deepEqual(readTrackToken('k', automationTrackToken('k', emailId)), { automation_email_id: emailId });
    assert.deepEqual(readTrackToken('k', trackToken('k', c, sub)), { campaign_id: c, subscriber_id: sub });
    assert.equal(readTrackToken('other', automationTrackToken('k', emailId)), undefined);
    assert.equal(
      readTrackToken('k', unsubscribeToken('k', c, sub)),
      undefined,
      'an unsubscribe token is no tracking token',
    );
  });

  test("the account's tracking switch: off → no pixel and links untouched; links already sent still redirect but record nothing", async () => {
    const { accountId, api } = await s.restAccount();
    const { email } = await welcome(api, [TRACKED_STEPS[0]]);
    const trackedClick = clickLink(htmlOf(email));
    await s.db.updateTable('accounts').set({ tracking_enabled: false }).where('id', '=', accountId).execute();
    assert.equal((await manual(trackedClick)).headers.get('location'), 'https://grove.example/start?a=1&b=2');
    await fetch(pixelOf(htmlOf(email))!);
    assert.equal((await eventsOf(accountId, 'email.clicked')).length, 0);
    assert.equal((await eventsOf(accountId, 'email.opened')).length, 0);

    const { email: later } = await welcome(api, [TRACKED_STEPS[0]], 'untracked');
    const html = htmlOf(later);
    assert.ok(!html.includes('/t/o/') && !html.includes('/t/c/'), html);
    assert.ok(links(html).includes('https://grove.example/start?a=1&b=2'));
  });

  test('an email sent before the steps were edited still redirects to its own link (link sets are kept by content)', async () => {
    const { api } = await s.restAccount();
    const steps = [
      { type: 'send_email', subject: 'v1', content_html: '<p><a href="https://grove.example/v1">v1</a></p>' },
    ];
    const { auto, email, group } = await welcome(api, steps);
    const oldClick = clickLink(htmlOf(email));
    const edited = await api.put(`/automations/${auto.id}`, {
      enabled: false,
      steps: [{ ...steps[0], subject: 'v2', content_html: '<p><a href="https://grove.example/v2">v2</a></p>' }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    await api.post(`/automations/${auto.id}/enable`);
    const next = uniqueEmail('after-edit');
    await api.post('/subscribers', { email: next, group_ids: [group.id] });
    await until('the edited email', () => mailTo(next).length === 1);
    assert.equal((await manual(clickLink(htmlOf(next)))).headers.get('location'), 'https://grove.example/v2');
    assert.equal((await manual(oldClick)).headers.get('location'), 'https://grove.example/v1');
  });
});

describe('Automation tracking › triggers and unsubscribe', () => {
  test('campaign_opened / link_clicked start runs for campaign emails only: opening or clicking an automation email starts nothing (no self-feeding loop)', async () => {
    const { accountId, api } = await s.restAccount();
    // an automation that would feed itself if its own opens and clicks counted
    const loop = await createAutomation(api, {
      name: 'self-feeding',
      trigger: { type: 'campaign_opened' },
      steps: [TRACKED_STEPS[0]],
    });
    const clicks = await createAutomation(api, {
      name: 'clicks',
      trigger: { type: 'link_clicked' },
      steps: [{ type: 'update_field', field: 'last_name', value: 'Clicker' }],
    });
    const { email, sub } = await welcome(api, [TRACKED_STEPS[0]]);
    const html = htmlOf(email);
    await fetch(pixelOf(html)!);
    assert.equal((await manual(clickLink(html))).status, 302);
    await until('both recorded', async () => (await eventsOf(accountId, 'email.clicked')).length === 1);
    await triggersCaughtUp();
    assert.equal(
      (await api.get(`/automations/${loop.id}`)).body.data.stats.started,
      0,
      'an automation email open is no campaign open',
    );
    assert.equal(
      (await api.get(`/automations/${clicks.id}`)).body.data.stats.started,
      0,
      'nor its click a campaign link click',
    );
    assert.equal(mailTo(email).length, 1);

    // the same triggers still react to a real campaign's tracked open and click
    const { campaignId, subscriberIds } = await sendCampaignTo(s.db, api, accountId, [uniqueEmail('reader')]);
    const reader = [...subscriberIds.values()][0]!;
    const campaignMail = await until('the campaign email', () =>
      sink.messages.find((m) => m.parsed?.headers.get('x-mailgrove-campaign') === campaignId),
    );
    await fetch(pixelOf(campaignMail.parsed!.html as string)!);
    assert.equal((await manual(clickLink(campaignMail.parsed!.html as string))).status, 302);
    await until('runs from the campaign', async () => {
      const [a, b] = await Promise.all([api.get(`/automations/${loop.id}`), api.get(`/automations/${clicks.id}`)]);
      return a.body.data.stats.started === 1 && b.body.data.stats.completed === 1;
    });
    const runs = (await api.get(`/automations/${loop.id}/activity`)).body.data.runs;
    assert.deepEqual(
      runs.map((r: any) => r.subscriber.id),
      [reader],
    );
    assert.notEqual(reader, sub.id);
  });

  test('the unsubscribe link of an automation email unsubscribes (page and one-click), credits the automation, and is never rewritten', async () => {
    const { accountId, api } = await s.restAccount();
    // a long delay: the second email must still be ahead when the subscriber leaves
    const { auto, sub, email } = await welcome(api, [
      TRACKED_STEPS[0],
      { type: 'delay', amount: 30, unit: 'days' },
      TRACKED_STEPS[2],
    ]);
    const unsubscribe = links(htmlOf(email)).find((l) => l.startsWith(`${s.url}/u/`))!;
    assert.ok(unsubscribe, htmlOf(email));
    const header = mailTo(email)[0]!.parsed!.headerLines.find((l) => l.key === 'list-unsubscribe')!.line;
    assert.ok(header.includes(unsubscribe), 'the List-Unsubscribe header carries the same link');
    const page = await fetch(unsubscribe);
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(sub.email.replace(/[.+]/g, '\\$&')));
    const res = await fetch(unsubscribe, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    assert.equal((await api.get(`/subscribers/${sub.id}`)).body.data.status, 'unsubscribed');
    const [ev] = await eventsOf(accountId, 'subscriber.unsubscribed');
    assert.deepEqual(
      [ev!.data.source, ev!.data.automation_id, ev!.subscriber_id],
      ['unsubscribe_link', auto.id, sub.id],
    );
    // the run stops before its next email
    await s.db
      .updateTable('automation_runs')
      .set({ next_run_at: new Date() })
      .where('automation_id', '=', auto.id)
      .where('status', '=', 'active')
      .execute();
    await until(
      'the run canceled',
      async () => (await api.get(`/automations/${auto.id}`)).body.data.stats.canceled === 1,
    );
    await sleep(300);
    assert.equal(mailTo(email).length, 1);
  });
});
