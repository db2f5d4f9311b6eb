// The REST campaign routes beyond create/read/update: test sends (through the real transport, to an SMTP
// sink, not in the ledger or the stats), clicks per link, the recipient CSV export, duplicates, previews
// without tracking, and MJML content kept out of the REST campaign's field set.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { recordClick } from '../../../src/domain/feedback/engagement.ts';
import { sendCampaignTo } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';

const sink = await startSink();
after(() => sink.close());
const s = await startServer(fileScope, { WORKER_POLL_MS: 100, SMTP_URL: sink.url });
const account = (scopes = ['*']) => s.restAccount({ scopes });
const draft = (extra: Record<string, unknown> = {}) => ({
  name: 'Extra',
  subject: 'Hello {{ subscriber.first_name }}',
  from_email: 'news@acme.test',
  content_html: '<p>Hi {{ subscriber.first_name }}</p><p><a href="https://example.org/page">Read</a></p>',
  ...extra,
});

describe('POST /campaigns/{id}/test', () => {
  test('sends "[Test] …" with the test header to each address, personalised for subscribers; no ledger, no stats', async () => {
    const { api } = await account();
    await api.post('/subscribers', { email: 'ada@tests.test', first_name: 'Ada' });
    const id = (await api.post('/campaigns', draft())).body.data.id;
    const res = await api.post(`/campaigns/${id}/test`, { emails: ['ada@tests.test', 'bob@tests.test'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { success: true, data: { sent: 2 } });
    await sink.waitFor(
      () => (sink.counts.get('bob@tests.test') ?? 0) >= 1 && (sink.counts.get('ada@tests.test') ?? 0) >= 1,
    );
    const ada = sink.messages.find((m) => m.to.includes('ada@tests.test'))!.parsed!;
    assert.equal(ada.subject, '[Test] Hello Ada');
    assert.equal(ada.headers.get('x-mailgrove-test'), 'true');
    assert.doesNotMatch(String(ada.html), /\/t\/|\/u\//, 'no tracked links, no pixel, no working unsubscribe link');
    assert.match(String(ada.html), /href="https:\/\/example.org\/page"/);
    const rows = await s.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', id).execute();
    assert.equal(rows.length, 0);
    const c = (await api.get(`/campaigns/${id}`)).body.data;
    assert.equal(c.status, 'draft');
    assert.equal(c.stats.sent, 0);
  });

  test('400 naming emails for none, more than 5 or a bad address; 404 for another account; campaigns:write needed', async () => {
    const { api, accountId } = await account();
    const id = (await api.post('/campaigns', draft())).body.data.id;
    const six = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}@tests.test`);
    for (const body of [{}, { emails: [] }, { emails: six }, { emails: ['nope'] }, { emails: 'a@tests.test' }]) {
      const res = await api.post(`/campaigns/${id}/test`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(
        Object.keys(res.body.data).some((k) => k.startsWith('emails')),
        JSON.stringify(res.body),
      );
    }
    const other = await account();
    const foreign = await other.api.post(`/campaigns/${id}/test`, { emails: ['x@tests.test'] });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'Campaign not found');
    const read = restClient(s.url, (await s.newKey(accountId, ['campaigns:read'])).key);
    assert.equal((await read.post(`/campaigns/${id}/test`, { emails: ['x@tests.test'] })).status, 403);
  });
});

describe('links, recipients.csv and duplicate', () => {
  test('GET /links: each tracked link with total and unique clicks; CSV export with the filter; 404 for others', async () => {
    const { api, accountId } = await account();
    const sent = await sendCampaignTo(s.db, api, accountId, ['l1@links.test', 'l2@links.test', '=evil@links.test']);
    const [a, b] = [sent.subscriberIds.get('l1@links.test')!, sent.subscriberIds.get('l2@links.test')!];
    for (const sub of [a, a, b]) await recordClick(s.db, { campaign_id: sent.campaignId, subscriber_id: sub }, 0);
    const links = await api.get(`/campaigns/${sent.campaignId}/links`);
    assert.equal(links.status, 200, JSON.stringify(links.body));
    assert.deepEqual(links.body.data.links, [
      { link_id: '0', url: 'https://example.org/page', clicks: 3, unique_clicks: 2 },
    ]);

    // a refused row: the CSV carries the server's own reply and its reading, as the dashboard shows them
    await s.db
      .updateTable('campaign_recipients')
      .set({
        state: 'failed',
        last_error: 'Mailbox unavailable',
        smtp_reply: '550 5.1.1 no such user',
        smtp_code: 550,
        smtp_status: '5.1.1',
        failure: 'bounced',
      })
      .where('campaign_id', '=', sent.campaignId)
      .where('subscriber_id', '=', sent.subscriberIds.get('=evil@links.test')!)
      .execute();
    const all = await fetch(`${s.url}/api/v1/external/campaigns/${sent.campaignId}/recipients.csv`, {
      headers: { authorization: `Bearer ${(await s.newKey(accountId, ['campaigns:read'])).key}` },
    });
    assert.equal(all.status, 200);
    assert.match(all.headers.get('content-type')!, /^text\/csv/);
    const lines = (await all.text()).trim().split('\r\n');
    assert.equal(
      lines[0],
      'email,first_name,last_name,state,sent_at,opened_at,clicked_at,unsubscribed_at,bounced_at,complained_at,smtp_reply,smtp_code,smtp_status,failure',
    );
    assert.equal(lines.length, 4);
    assert.match(
      lines.find((l) => l.startsWith("'=evil@links.test,")) ?? '',
      /,failed,.*,550 5\.1\.1 no such user,550,5\.1\.1,bounced$/,
    );
    assert.ok(
      lines.some((l) => l.startsWith("'=evil@links.test,")),
      'a formula-like cell is defused',
    );
    const clicked = await api.get(`/campaigns/${sent.campaignId}/recipients.csv?filter=clicked`);
    const rows = String(clicked.body).trim().split('\r\n').slice(1);
    assert.deepEqual(rows.map((r) => r.split(',')[0]).sort(), ['l1@links.test', 'l2@links.test']);
    assert.ok(rows.every((r) => r.split(',')[3] === 'sent'));

    const bad = await api.get(`/campaigns/${sent.campaignId}/recipients.csv?filter=nope`);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.filter);
    const other = await account();
    for (const path of ['links', 'recipients.csv'])
      assert.equal((await other.api.get(`/campaigns/${sent.campaignId}/${path}`)).status, 404);
  });

  test('POST /duplicate → 201 a new draft "Copy of …" with the content and audience; 404 for others', async () => {
    const { api } = await account();
    const group = (await api.post('/groups', { name: 'Dup group' })).body.data;
    const id = (await api.post('/campaigns', draft({ name: 'Spring', group_ids: [group.id] }))).body.data.id;
    const copy = await api.post(`/campaigns/${id}/duplicate`);
    assert.equal(copy.status, 201, JSON.stringify(copy.body));
    const c = copy.body.data;
    assert.notEqual(c.id, id);
    assert.equal(c.name, 'Copy of Spring');
    assert.equal(c.status, 'draft');
    assert.equal(c.content_html, draft().content_html);
    assert.deepEqual(c.group_ids, [group.id]);
    assert.equal(c.content_format, 'html', 'the REST campaign shows what its author wrote beside content_html');
    const other = await account();
    assert.equal((await other.api.post(`/campaigns/${id}/duplicate`)).status, 404);
    const reader = await account(['campaigns:read']);
    assert.equal((await reader.api.post(`/campaigns/${id}/duplicate`)).status, 403);
  });
});

describe('previews and MJML through REST', () => {
  test('POST /preview has no tracking pixel, no tracked links and no working unsubscribe link', async () => {
    const { api } = await account();
    const id = (await api.post('/campaigns', draft())).body.data.id;
    const p = (await api.post(`/campaigns/${id}/preview`, {})).body.data;
    assert.doesNotMatch(p.html, /\/t\/|\/u\/|width="1" height="1"/);
    assert.match(p.html, /href="#">Unsubscribe/);
    assert.match(p.html, /href="https:\/\/example.org\/page"/);
    assert.doesNotMatch(JSON.stringify(p.headers), /\/u\//);
  });

  test('an MJML campaign shows its compiled HTML; a REST update of content_html makes it HTML again', async () => {
    const { api, accountId } = await account();
    const id = (await api.post('/campaigns', draft())).body.data.id;
    const mjml =
      '<mjml><mj-body><mj-section><mj-column><mj-text>Hi {{ subscriber.first_name }}</mj-text></mj-column></mj-section></mj-body></mjml>';
    await s.db
      .updateTable('campaigns')
      .set({ content_format: 'mjml', content_source: mjml, content_html: '<html><body>compiled</body></html>' })
      .where('id', '=', id)
      .execute();
    const got = (await api.get(`/campaigns/${id}`)).body.data;
    assert.equal(got.content_html, '<html><body>compiled</body></html>');
    assert.equal(got.content_format, 'mjml');
    assert.equal(got.content_source, mjml);
    await api.put(`/campaigns/${id}`, { content_html: '<p>plain</p>' });
    const row = await s.db
      .selectFrom('campaigns')
      .select(['content_format', 'content_source'])
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { content_format: 'html', content_source: '<p>plain</p>' });
  });
});
