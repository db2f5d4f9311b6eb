// Evidence behind a campaign's figures, on the real server: GET /campaigns/{id}/providers (the ledger per
// mail provider and recipient domain, through a real SMTP sink that defers one address and refuses
// another), GET /campaigns/{id}/links/{link_id}/recipients (who clicked, recorded through the real click
// URL, paged), and honest opens (pixel loads from Apple's proxy addresses or agent are machine opens, kept
// out of unique_human_opens and the dashboard's open rate). The server trusts X-Forwarded-For
// (TRUST_PROXY) so a test can open from an Apple address.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { clickUrl, openUrl } from '../../../src/mail/tracking.ts';
import { eventsOfType, sendCampaignTo } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';
import { signedIn } from '../dashboard/session.ts';

const sink = await startSink({
  parse: false,
  reply: (rcpt, attempt) => {
    if (rcpt === 'later@gmail.com' && attempt === 1) return [450, '4.2.1 Mailbox busy, try again later'];
    if (rcpt === 'gone@acme.test') return [550, '5.1.1 No such user'];
    return undefined;
  },
});
after(() => sink.close());
const s = await startServer(fileScope, {
  WORKER_POLL_MS: 100,
  SMTP_URL: sink.url,
  SEND_RETRY_BASE_MS: 100,
  TRUST_PROXY: true,
});
s.config.publicUrl = s.url;

const account = () => s.restAccount({ scopes: ['*'] });
const open = (campaignId: string, sub: string, headers: Record<string, string> = {}) =>
  fetch(openUrl(s.config, campaignId, sub), { headers });
const click = (campaignId: string, sub: string, link: number) =>
  fetch(clickUrl(s.config, campaignId, sub, link), { redirect: 'manual' });
const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

describe('GET /campaigns/{id}/providers', () => {
  test('sent, deferred, failed, bounced, opened (people), clicked per provider, with its domains; 404 for others', async () => {
    const { api, accountId } = await account();
    const emails = [
      'a@gmail.com',
      'later@gmail.com',
      'b@GoogleMail.com',
      'c@hotmail.fr',
      'd@icloud.com',
      'e@acme.test',
      'gone@acme.test',
    ];
    const sent = await sendCampaignTo(s.db, api, accountId, emails, { from_email: 'news@sender.test' });
    const id = sent.campaignId;
    const sub = (e: string) => sent.subscriberIds.get(e)!;
    assert.equal((await click(id, sub('a@gmail.com'), 0)).status, 302);
    await open(id, sub('later@gmail.com'), { 'user-agent': SAFARI });
    await open(id, sub('d@icloud.com'), { 'x-forwarded-for': '17.58.63.4', 'user-agent': 'Mozilla/5.0' });
    // a bounce report arrives later for an accepted message
    await s.db
      .updateTable('campaign_recipients')
      .set({ bounced_at: new Date() })
      .where('campaign_id', '=', id)
      .where('email', '=', 'e@acme.test')
      .execute();

    const res = await api.get(`/campaigns/${id}/providers`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const byName = new Map<string, any>(res.body.data.providers.map((p: any) => [p.provider, p]));
    assert.deepEqual(
      res.body.data.providers.map((p: any) => p.provider),
      ['google', 'acme.test', 'apple', 'microsoft'],
      'largest first, then by name',
    );
    const google = byName.get('google');
    assert.deepEqual(
      [google.recipients, google.sent, google.deferred, google.failed, google.bounced],
      [3, 3, 1, 0, 0],
      'later@gmail.com was deferred once, then sent',
    );
    assert.deepEqual([google.opened, google.human_opened, google.clicked], [2, 2, 1], 'a click counts as an open');
    assert.deepEqual(
      google.domains.map((d: any) => [d.domain, d.recipients, d.deferred]),
      [
        ['gmail.com', 2, 1],
        ['googlemail.com', 1, 0],
      ],
      'domains lower-cased',
    );
    const acme = byName.get('acme.test');
    // a 5.1.1 refusal may mark the row bounced as well as failed: count what the ledger holds
    const bouncedRows = await s.db
      .selectFrom('campaign_recipients')
      .select('email')
      .where('campaign_id', '=', id)
      .where('bounced_at', 'is not', null)
      .execute();
    assert.ok(bouncedRows.some((r) => r.email === 'e@acme.test'));
    assert.deepEqual([acme.recipients, acme.sent, acme.failed, acme.bounced], [2, 1, 1, bouncedRows.length]);
    const apple = byName.get('apple');
    assert.deepEqual([apple.opened, apple.human_opened], [1, 0], "Apple's proxy opened it, not a person");
    assert.deepEqual(Object.keys(byName.get('microsoft')).sort(), [
      'bounced',
      'clicked',
      'deferred',
      'domains',
      'failed',
      'human_opened',
      'opened',
      'provider',
      'recipients',
      'sent',
    ]);

    const other = await account();
    const foreign = await other.api.get(`/campaigns/${id}/providers`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'Campaign not found');
    assert.equal((await api.get(`/campaigns/not-a-uuid/providers`)).status, 404);
    const noScope = restClient(s.url, (await s.newKey(accountId, ['subscribers:read'])).key);
    assert.equal((await noScope.get(`/campaigns/${id}/providers`)).status, 403);
  });
});

describe('GET /campaigns/{id}/links/{link_id}/recipients', () => {
  test('clicks through the real tracking URL list who clicked (first click, count), paged; bad link_id and others → 404', async () => {
    const { api, accountId } = await account();
    const sent = await sendCampaignTo(s.db, api, accountId, ['x1@links.test', 'x2@links.test', 'x3@links.test'], {
      from_email: 'news@sender.test',
      content_html: '<p><a href="https://example.org/one">One</a> <a href="https://example.org/two">Two</a></p>',
    });
    const id = sent.campaignId;
    const [x1, x2] = [sent.subscriberIds.get('x1@links.test')!, sent.subscriberIds.get('x2@links.test')!];
    for (const [sub, link] of [
      [x1, 1],
      [x2, 1],
      [x1, 1],
      [x1, 0],
    ] as const)
      assert.equal((await click(id, sub, link)).status, 302);

    const links = (await api.get(`/campaigns/${id}/links`)).body.data.links;
    assert.deepEqual(links, [
      { link_id: '0', url: 'https://example.org/one', clicks: 1, unique_clicks: 1 },
      { link_id: '1', url: 'https://example.org/two', clicks: 3, unique_clicks: 2 },
    ]);

    const res = await api.get(`/campaigns/${id}/links/${links[1].link_id}/recipients`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.data.recipients;
    assert.deepEqual(
      rows.map((r: any) => [r.subscriber_id, r.email, r.clicks]),
      [
        [x1, 'x1@links.test', 2],
        [x2, 'x2@links.test', 1],
      ],
      'first clicker first',
    );
    assert.ok(Date.parse(rows[0].first_clicked_at) <= Date.parse(rows[1].first_clicked_at));
    assert.ok(Date.parse(rows[0].last_clicked_at) >= Date.parse(rows[0].first_clicked_at));
    assert.deepEqual(res.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 2, per_page: 25 });

    const second = await api.get(`/campaigns/${id}/links/1/recipients?page=2&per_page=1`);
    assert.deepEqual(
      second.body.data.recipients.map((r: any) => r.email),
      ['x2@links.test'],
    );
    assert.deepEqual(second.body.data.pagination, { current_page: 2, total_pages: 2, total_count: 2, per_page: 1 });
    const bad = await api.get(`/campaigns/${id}/links/1/recipients?page=0`);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.page);

    for (const linkId of ['2', 'abc', '-1', '1.5', '99999999999'])
      assert.deepEqual(
        [linkId, (await api.get(`/campaigns/${id}/links/${linkId}/recipients`)).body.error],
        [linkId, 'Link not found'],
      );
    const other = await account();
    const foreign = await other.api.get(`/campaigns/${id}/links/1/recipients`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'Campaign not found');

    // the ledger agrees: the clicks landed on the email's row as well
    const stats = (await api.get(`/campaigns/${id}`)).body.data.stats;
    assert.deepEqual([stats.clicks, stats.unique_clicks], [4, 2]);
  });
});

describe('Honest opens', () => {
  test("an open from Apple's proxy address or agent is a machine open: counted in opens and machine_opens, not in unique_human_opens or the dashboard's open rate", async () => {
    const { api, accountId } = await account();
    const emails = ['h1@opens.test', 'm1@opens.test', 'm2@opens.test', 'm3@opens.test'];
    const sent = await sendCampaignTo(s.db, api, accountId, emails, { from_email: 'news@sender.test' });
    const id = sent.campaignId;
    const sub = (e: string) => sent.subscriberIds.get(e)!;
    await open(id, sub('h1@opens.test'), { 'user-agent': SAFARI });
    await open(id, sub('m1@opens.test'), { 'x-forwarded-for': '17.58.63.4', 'user-agent': SAFARI });
    await open(id, sub('m2@opens.test'), { 'user-agent': 'Mozilla/5.0' });
    await open(id, sub('m3@opens.test'), { 'x-forwarded-for': '2620:149:a0c:f000::1' });

    let stats = (await api.get(`/campaigns/${id}`)).body.data.stats;
    assert.deepEqual(
      [stats.opens, stats.unique_opens, stats.machine_opens, stats.unique_human_opens],
      [4, 4, 3, 1],
      'opens keep counting every pixel load; machine opens are counted apart',
    );
    const opened = await eventsOfType(s.db, accountId, 'email.opened');
    assert.deepEqual(
      opened.map((e) => [e.subscriber_id, e.data.machine ?? false]),
      [
        [sub('h1@opens.test'), false],
        [sub('m1@opens.test'), true],
        [sub('m2@opens.test'), true],
        [sub('m3@opens.test'), true],
      ],
    );

    // a person who later opens or clicks the proxied email counts as a person
    await open(id, sub('m1@opens.test'), { 'user-agent': SAFARI });
    await click(id, sub('m2@opens.test'), 0);
    stats = (await api.get(`/campaigns/${id}`)).body.data.stats;
    assert.deepEqual([stats.opens, stats.machine_opens, stats.unique_human_opens], [5, 3, 3]);

    // the dashboard's open rate and report count people; the report shows the machine opens beside them
    const { client } = await signedIn(s, 'viewer', accountId);
    const row = (await client.get('/campaigns')).body.data.campaigns.find((c: any) => c.id === id);
    assert.deepEqual([row.unique_opens, row.open_rate], [4, 3 / 4]);
    const report = (await client.get(`/campaigns/${id}/report`)).body.data.stats;
    assert.deepEqual([report.unique_opens, report.unique_human_opens, report.machine_opens], [4, 3, 3]);
    const providers = (await client.get(`/campaigns/${id}/providers`)).body.data.providers;
    assert.deepEqual(
      providers.map((p: any) => [p.provider, p.opened, p.human_opened]),
      [['opens.test', 4, 3]],
    );
    const clickers = await client.get(`/campaigns/${id}/links/0/recipients`);
    assert.deepEqual(
      [clickers.body.data.pagination.total_count, clickers.body.data.recipients[0].email],
      [1, 'm2@opens.test'],
    );
    assert.equal((await client.get(`/campaigns/${id}/links/5/recipients`)).status, 404);
  });
});
