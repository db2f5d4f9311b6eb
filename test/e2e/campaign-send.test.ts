// Campaigns sent end to end: the real server, a real SMTP conversation with an
// smtp-server sink in this process, every message parsed with mailparser.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ledgerCounts, seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { fileScope } from '../support/scope.ts';
import { client, restClient, startServer, type TestServer } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';

// soft*@ addresses are refused with 451 twice, then accepted; hard*@ addresses always get 550
const sink: Sink = await startSink({
  reply: (rcpt, attempt) =>
    rcpt.startsWith('soft') && attempt <= 2
      ? [451, '4.7.1 Greylisted, try again later']
      : rcpt.startsWith('hard')
        ? [550, '5.1.1 User unknown']
        : undefined,
});
after(() => sink.close());
const s: TestServer = await startServer(fileScope, {
  SMTP_URL: sink.url,
  WORKER_POLL_MS: 100,
  SCHEDULER_INTERVAL_MS: 200,
  SEND_RETRY_BASE_MS: 100,
  SEND_MAX_ATTEMPTS: 3,
  SEND_IN_FLIGHT: 20, // the cancel test's bound: what is in flight plus one status refresh
});
// PORT=0 gives PUBLIC_URL port 0; links in emails must point at the port the server really got
s.config.publicUrl = s.url;

/** A header's raw value as sent (mailparser folds List-* headers into a structured `list` object). */
function header(m: { headerLines: readonly { key: string; line: string }[] }, name: string): string | undefined {
  const h = m.headerLines.find((l) => l.key === name.toLowerCase());
  return h?.line.slice(h.line.indexOf(':') + 1).trim();
}

function toOf(sinkMsgs: Sink['messages'], domain: string) {
  return sinkMsgs.filter((m) => m.to[0]!.endsWith(`@${domain}`));
}

describe('Sending', () => {
  test('rendering: personalised subject and body, HTML and text parts, bulk headers, List-Unsubscribe-Post', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const { groupId } = await seedAudience(s.db, accountId, 3, { domain: 'render.test' });
    const created = await api.post('/campaigns', {
      name: 'Welcome',
      subject: 'Hi {{ subscriber.first_name | default: "there" }}',
      from_name: 'Acme News',
      from_email: 'news@acme.test',
      reply_to: 'help@acme.test',
      content_html:
        '<html><body><p>Hello {{ subscriber.first_name }} from {{ subscriber.custom_fields.company }} ({{ campaign.name }})</p><a href="https://acme.test/offer?a=1&amp;b=2">Offer</a></body></html>',
      group_ids: [groupId],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id;
    const scheduled = await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.data.status, 'sending');
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.equal(done.stats.recipients, 3);
    assert.equal(done.stats.sent, 3);
    const mails = toOf(sink.messages, 'render.test');
    assert.equal(mails.length, 3);
    const m = mails.find((x) => x.to[0] === 'r2@render.test')!.parsed!;
    assert.equal(m.subject, 'Hi Name2');
    assert.match(m.html as string, /Hello Name2 from Co2 \(Welcome\)/);
    assert.match(m.text!, /Hello Name2 from Co2 \(Welcome\)/);
    assert.equal(m.from!.text, '"Acme News" <news@acme.test>');
    assert.equal(m.replyTo!.text, 'help@acme.test');
    assert.equal(m.headers.get('precedence'), 'bulk');
    assert.equal(header(m, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
    assert.match(header(m, 'List-Unsubscribe')!, new RegExp(`^<${s.url}/u/[A-Za-z0-9_-]+>$`));
    assert.ok(m.messageId && /^<[^@]+@[^>]+>$/.test(m.messageId));
    assert.equal(new Set(mails.map((x) => x.parsed!.messageId)).size, 3, 'Message-IDs are unique');
    // ledger keeps the message id of each recipient
    const rec = await api.get(`/campaigns/${id}/recipients?filter=sent`);
    assert.equal(rec.body.data.recipients.length, 3);
    assert.ok(
      rec.body.data.recipients.every((r: any) => m.messageId!.length > 0 && r.message_id && r.state === 'sent'),
    );
    assert.deepEqual(await ledgerCounts(s.db, id), { sent: 3 });
  });
});

/** Sends a one-recipient-per-address campaign through the REST API and waits for it to finish. */
async function sendTo(
  api: ReturnType<typeof restClient>,
  accountId: string,
  domain: string,
  n: number,
  extra: Record<string, unknown> = {},
) {
  const { groupId } = await seedAudience(s.db, accountId, n, { domain });
  const created = await api.post('/campaigns', {
    name: 'Tracked',
    subject: 'News for {{ subscriber.first_name }}',
    content_html:
      '<html><body><p>Hi</p><a href="https://acme.test/offer?a=1&amp;b=2">Offer</a> <a href="{{ unsubscribe_url }}">Leave</a></body></html>',
    group_ids: [groupId],
    ...extra,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
  await waitForCampaign(api, id, (c) => c.status === 'sent');
  return id;
}

describe('Tracking and unsubscribe', () => {
  test('tracking: links are rewritten to /t/c/, which redirects (302) to the stored URL; the pixel counts an open', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const id = await sendTo(api, accountId, 'track.test', 1);
    const m = toOf(sink.messages, 'track.test')[0]!.parsed!;
    const html = m.html as string;
    const click = /href="([^"]*\/t\/c\/[^"]+)"/.exec(html)?.[1];
    const pixel = /(?:<img src|background)="([^"]*\/t\/o\/[^"]+)"/.exec(html)?.[1];
    assert.ok(click && pixel, html);
    assert.ok(!html.includes('https://acme.test/offer'), 'the original link is not exposed in the HTML');
    assert.match(html, /href="[^"]*\/u\/[^"]+">Leave/, 'the unsubscribe link is not tracked');
    const redirect = await fetch(click, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), 'https://acme.test/offer?a=1&b=2');
    const gif = await fetch(pixel);
    assert.equal(gif.status, 200);
    assert.equal(gif.headers.get('content-type'), 'image/gif');
    assert.equal(
      Buffer.from(await gif.arrayBuffer())
        .subarray(0, 6)
        .toString(),
      'GIF89a',
    );
    await fetch(pixel);
    const stats = (await api.get(`/campaigns/${id}`)).body.data.stats;
    assert.deepEqual([stats.opens, stats.unique_opens, stats.clicks, stats.unique_clicks], [2, 1, 1, 1]);
    const events = await s.db
      .selectFrom('events')
      .select(['type', 'data', 'subscriber_id'])
      .where('account_id', '=', accountId)
      .where('type', 'in', ['email.opened', 'email.clicked'])
      .execute();
    assert.equal(events.filter((e) => e.type === 'email.opened').length, 2);
    const clicked = events.find((e) => e.type === 'email.clicked')!;
    assert.equal(clicked.data.campaign_id, id);
    assert.equal(clicked.data.url, 'https://acme.test/offer?a=1&b=2');
    assert.ok(clicked.subscriber_id);
    assert.equal((await api.get(`/campaigns/${id}/recipients?filter=clicked`)).body.data.recipients.length, 1);
  });

  test('Tracking › a forged click token is 404, never a redirect', async () => {
    const { accountId, key } = await s.newAccount();
    const id = await sendTo(restClient(s.url, key), accountId, 'forge.test', 1);
    const click = /href="([^"]*\/t\/c\/[^"]+)"/.exec(toOf(sink.messages, 'forge.test')[0]!.parsed!.html as string)![1]!;
    const [token, link] = click.split('/t/c/')[1]!.split('/') as [string, string];
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const res = await fetch(`${s.url}/t/c/${flipped}/${link}`, { redirect: 'manual' });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('location'), null);
    assert.equal(
      (await fetch(`${s.url}/t/c/${token}/99`, { redirect: 'manual' })).status,
      404,
      'an index the campaign does not store',
    );
    assert.equal((await fetch(`${s.url}/t/c/https%3A%2F%2Fevil.test`, { redirect: 'manual' })).status, 404);
    assert.equal((await restClient(s.url, key).get(`/campaigns/${id}`)).body.data.stats.clicks, 0);
  });

  test('Tracking › off for the account: no pixel, links untouched', async () => {
    const { accountId, key } = await s.newAccount();
    await s.db.updateTable('accounts').set({ tracking_enabled: false }).where('id', '=', accountId).execute();
    await sendTo(restClient(s.url, key), accountId, 'notrack.test', 1);
    const html = toOf(sink.messages, 'notrack.test')[0]!.parsed!.html as string;
    assert.ok(!html.includes('/t/o/') && !html.includes('/t/c/'), html);
    assert.match(html, /href="https:\/\/acme\.test\/offer\?a=1&amp;b=2"/);
  });

  test('RFC 8058 one-click: POST to the List-Unsubscribe URL with List-Unsubscribe=One-Click unsubscribes, writes subscriber.unsubscribed, counts in stats', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const id = await sendTo(api, accountId, 'oneclick.test', 2);
    const m = toOf(sink.messages, 'oneclick.test').find((x) => x.to[0] === 'r1@oneclick.test')!.parsed!;
    const url = header(m, 'List-Unsubscribe')!.replace(/^<|>$/g, '');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    const sub = await s.db
      .selectFrom('subscribers')
      .select(['id', 'status'])
      .where('account_id', '=', accountId)
      .where('email', '=', 'r1@oneclick.test')
      .executeTakeFirstOrThrow();
    assert.equal(sub.status, 'unsubscribed');
    const ev = await s.db
      .selectFrom('events')
      .select(['data'])
      .where('account_id', '=', accountId)
      .where('type', '=', 'subscriber.unsubscribed')
      .execute();
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.data.campaign_id, id);
    assert.equal((await api.get(`/campaigns/${id}`)).body.data.stats.unsubscribes, 1);
    // mail clients retry: a second POST changes nothing
    assert.equal(
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
          body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await s.db
          .selectFrom('events')
          .select('id')
          .where('account_id', '=', accountId)
          .where('type', '=', 'subscriber.unsubscribed')
          .execute()
      ).length,
      1,
    );
    const other = await s.db
      .selectFrom('subscribers')
      .select('status')
      .where('account_id', '=', accountId)
      .where('email', '=', 'r2@oneclick.test')
      .executeTakeFirstOrThrow();
    assert.equal(other.status, 'active');
  });
});

describe('Delivery', () => {
  test('schedule_campaign scheduled: fires by itself shortly after scheduled_at', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const { groupId } = await seedAudience(s.db, accountId, 5, { domain: 'later.test' });
    const id = (
      await api.post('/campaigns', {
        name: 'Later',
        subject: 'Later',
        content_html: '<p>Later</p>',
        group_ids: [groupId],
      })
    ).body.data.id;
    const at = new Date(Date.now() + 1500);
    const res = await api.post(`/campaigns/${id}/schedule`, { delivery: 'scheduled', scheduled_at: at.toISOString() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'scheduled');
    assert.equal((await api.get(`/campaigns/${id}`)).body.data.stats.recipients, 0, 'nobody is frozen before the time');
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent', 15_000);
    assert.ok(new Date(done.started_at).getTime() >= at.getTime() - 50, `${done.started_at} vs ${at.toISOString()}`);
    assert.equal(done.stats.sent, 5);
    assert.equal(toOf(sink.messages, 'later.test').length, 5);
  });

  test('SMTP 4xx is retried with backoff and then delivered; 5xx fails at once with the reply', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const group = await s.db
      .insertInto('groups')
      .values({ account_id: accountId, name: 'Mixed' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const subs = await s.db
      .insertInto('subscribers')
      .values(
        ['soft1@retry.test', 'hard1@retry.test', 'ok1@retry.test'].map((email) => ({
          account_id: accountId,
          email,
          custom_fields: '{}',
        })),
      )
      .returning('id')
      .execute();
    await s.db
      .insertInto('subscriber_groups')
      .values(subs.map((x) => ({ group_id: group.id, subscriber_id: x.id, account_id: accountId })))
      .execute();
    const id = (
      await api.post('/campaigns', { name: 'Retry', subject: 'Retry', content_html: '<p>x</p>', group_ids: [group.id] })
    ).body.data.id;
    await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent', 20_000);
    assert.equal(done.stats.sent, 2);
    assert.equal(done.stats.failed, 1);
    const rows = (await api.get(`/campaigns/${id}/recipients`)).body.data.recipients;
    const byEmail = Object.fromEntries(rows.map((r: any) => [r.subscriber.email, r]));
    assert.equal(byEmail['soft1@retry.test'].state, 'sent');
    assert.equal(byEmail['soft1@retry.test'].attempts, 3, 'two 451 replies, then accepted');
    assert.equal(byEmail['hard1@retry.test'].state, 'failed');
    assert.equal(byEmail['hard1@retry.test'].attempts, 1);
    assert.match(byEmail['hard1@retry.test'].last_error, /550/);
    assert.equal(sink.counts.get('soft1@retry.test'), 1);
    assert.equal(sink.counts.get('hard1@retry.test'), undefined);
  });

  test('cancel_campaign while sending: stops within one batch; nobody still queued gets mail; counts add up', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const { groupId } = await seedAudience(s.db, accountId, 800, { domain: 'cancel.test' });
    const id = (
      await api.post('/campaigns', { name: 'Stop', subject: 'Stop', content_html: '<p>x</p>', group_ids: [groupId] })
    ).body.data.id;
    sink.setDelay(40);
    try {
      await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
      await sink.waitFor(() => toOf(sink.messages, 'cancel.test').length >= 40);
      const cancelled = await api.post(`/campaigns/${id}/cancel`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.data.status, 'cancelled');
      const atCancel = toOf(sink.messages, 'cancel.test').length;
      await new Promise((r) => setTimeout(r, 1500));
      const final = toOf(sink.messages, 'cancel.test').length;
      assert.ok(final - atCancel <= 60, `${final - atCancel} messages after cancel (in flight + one status refresh)`);
      const counts = await ledgerCounts(s.db, id);
      assert.equal(counts.queued ?? 0, 0);
      assert.equal(counts.sending ?? 0, 0);
      assert.equal((counts.sent ?? 0) + (counts.skipped ?? 0) + (counts.failed ?? 0) + (counts.interrupted ?? 0), 800);
      assert.equal(counts.sent, final, 'every message the sink got is recorded as sent, and nothing else was sent');
      assert.ok(counts.skipped! > 500);
      const c = (await api.get(`/campaigns/${id}`)).body.data;
      assert.equal(c.status, 'cancelled');
      assert.ok(c.cancelled_at);
    } finally {
      sink.setDelay(0);
    }
  });
});
