// /app/api campaigns (docs/dashboard-api.md): the editor with MJML compiled on save, field errors keyed by
// the body's names, the list rows with rates, audience counts, previews without tracking, test sends,
// progress, report, recipients and their CSV, starter templates, the overview; roles and tenant scoping.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { recordClick, recordOpen } from '../../../../src/domain/feedback/engagement.ts';
import { seedAudience, sendCampaignTo } from '../../../support/campaigns.ts';
import { fileScope } from '../../../support/scope.ts';
import { restClient, startServer } from '../../../support/server.ts';
import { startSink } from '../../../support/smtpSink.ts';
import { signedIn } from '../session.ts';

const sink = await startSink();
after(() => sink.close());
const s = await startServer(fileScope, { WORKER_POLL_MS: 100, SMTP_URL: sink.url });
const MJML =
  '<mjml><mj-body><mj-section><mj-column><mj-text>Hi {{ subscriber.first_name | default: "friend" }}</mj-text>' +
  '<mj-button href="https://example.org/go?u={{ subscriber.id }}">Go</mj-button></mj-column></mj-section></mj-body></mjml>';

describe('dashboard campaign editor', () => {
  test('POST MJML → compiled HTML with Liquid intact, account defaults filled in; PUT, GET, duplicate, DELETE', async () => {
    const { client, accountId } = await signedIn(s);
    await s.db
      .updateTable('accounts')
      .set({ default_from_name: 'Acme', default_from_email: 'news@acme.test' })
      .where('id', '=', accountId)
      .execute();
    const res = await client.post('/campaigns', {
      name: 'M',
      subject: 'Hi {{ subscriber.first_name }}',
      content_format: 'mjml',
      content_source: MJML,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const c = res.body.data;
    assert.equal(c.content_format, 'mjml');
    assert.equal(c.content_source, MJML);
    assert.match(c.content_html, /Hi \{\{ subscriber.first_name \| default: "friend" \}\}/);
    assert.match(c.content_html, /href="https:\/\/example.org\/go\?u=\{\{ subscriber.id \}\}"/);
    assert.equal(c.from_name, 'Acme');
    assert.equal(c.from_email, 'news@acme.test');
    for (const k of ['audience', 'recipients', 'open_rate', 'click_rate', 'plain_text', 'sent_at'])
      assert.ok(k in c, k);

    const put = await client.put(`/campaigns/${c.id}`, { content_format: 'html', content_source: '<p>Plain</p>' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.data.content_html, '<p>Plain</p>');
    assert.equal((await client.get(`/campaigns/${c.id}`)).body.data.content_format, 'html');

    const copy = await client.post(`/campaigns/${c.id}/duplicate`);
    assert.equal(copy.status, 201);
    assert.equal(copy.body.data.name, 'Copy of M');
    assert.equal(copy.body.data.content_source, '<p>Plain</p>');
    const list = await client.get('/campaigns?status=draft&per_page=10');
    assert.deepEqual(Object.keys(list.body.data).sort(), ['campaigns', 'pagination']);
    assert.equal(list.body.data.pagination.total_count, 2);
    assert.equal(list.body.data.campaigns[0].id, copy.body.data.id, 'newest first');
    assert.equal((await client.delete(`/campaigns/${c.id}`)).status, 200);
    assert.equal((await client.get(`/campaigns/${c.id}`)).status, 404);
  });

  test('400 with the field map: MJML and Liquid errors on content_source, bad fields by body name', async () => {
    const { client } = await signedIn(s);
    const mjml = await client.post('/campaigns', {
      name: 'E',
      content_format: 'mjml',
      content_source: '<mjml><mj-body><mj-nope/></mj-body></mjml>',
    });
    assert.equal(mjml.status, 400);
    assert.match(mjml.body.data.content_source[0], /MJML error: .*mj-nope/);
    const liquid = await client.post('/campaigns', { name: 'E', content_source: '<p>{% if %}</p>' });
    assert.equal(liquid.status, 400);
    assert.ok(liquid.body.data.content_source, JSON.stringify(liquid.body));
    const subject = await client.post('/campaigns', { name: 'E', subject: '{{ x | nofilter }}' });
    assert.equal(subject.status, 400);
    assert.ok(subject.body.data.subject);
    const bad = await client.post('/campaigns', { name: '', content_format: 'pdf', from_email: 'x' });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.name && bad.body.data.content_format && bad.body.data.from_email, JSON.stringify(bad.body));
    assert.equal(
      (await client.post('/campaigns/render', { content_format: 'mjml', content_source: '<p>' })).status,
      400,
    );
  });

  test('roles: a viewer reads but cannot write (403); another account’s id is 404', async () => {
    const owner = await signedIn(s);
    const id = (await owner.client.post('/campaigns', { name: 'R' })).body.data.id;
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.get(`/campaigns/${id}`)).status, 200);
    assert.equal((await viewer.client.get('/campaign-templates')).status, 200);
    for (const res of [
      await viewer.client.post('/campaigns', { name: 'x' }),
      await viewer.client.put(`/campaigns/${id}`, { name: 'x' }),
      await viewer.client.delete(`/campaigns/${id}`),
      await viewer.client.post(`/campaigns/${id}/test`, { emails: ['a@b.test'] }),
      await viewer.client.post(`/campaigns/${id}/duplicate`),
    ])
      assert.equal(res.status, 403);
    const other = await signedIn(s);
    for (const path of ['', '/progress', '/report', '/recipients', '/recipients.csv'])
      assert.equal((await other.client.get(`/campaigns/${id}${path}`)).status, 404, path);
    for (const path of ['/duplicate', '/preview', '/cancel'])
      assert.equal((await other.client.post(`/campaigns/${id}${path}`)).status, 404, path);
  });
});

describe('dashboard audience, previews and test sends', () => {
  test('audience-count: active members of groups and segments once; 400 for an unknown group', async () => {
    const { client, accountId } = await signedIn(s);
    const { groupId: g1 } = await seedAudience(s.db, accountId, 5, { domain: 'count.test' });
    const { groupId: g2 } = await seedAudience(s.db, accountId, 3, { domain: 'count2.test' });
    const both = await s.db
      .selectFrom('subscribers')
      .select('id')
      .where('account_id', '=', accountId)
      .where('email', 'in', ['r4@count.test', 'r5@count.test'])
      .execute();
    await s.db
      .insertInto('subscriber_groups')
      .values(both.map((b) => ({ group_id: g2, subscriber_id: b.id, account_id: accountId })))
      .execute();
    await s.db
      .updateTable('subscribers')
      .set({ status: 'unsubscribed' })
      .where('account_id', '=', accountId)
      .where('email', '=', 'r1@count.test')
      .execute();
    const res = await client.post('/campaigns/audience-count', { group_ids: [g1, g2], segment_ids: [] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { count: 7 }, '5 + 3, r1 unsubscribed, r4 and r5 in both groups counted once');
    const bad = await client.post('/campaigns/audience-count', { group_ids: ['00000000-0000-4000-8000-000000000000'] });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.group_ids);
  });

  test('render and preview: no pixel, no tracked or unsubscribe links; test send reaches the sink, not the ledger', async () => {
    const { client } = await signedIn(s);
    const r = await client.post('/campaigns/render', {
      subject: 'S {{ subscriber.first_name }}',
      content_format: 'mjml',
      content_source: MJML,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.subject, 'S Preview');
    assert.match(r.body.data.html, /Hi Preview/);
    assert.doesNotMatch(r.body.data.html, /\/t\/|\/u\/|width="1" height="1"/);
    const c = (
      await client.post('/campaigns', {
        name: 'T',
        subject: 'T',
        content_source: '<p><a href="https://example.org/x">x</a></p>',
      })
    ).body.data;
    const p = await client.post(`/campaigns/${c.id}/preview`, {});
    assert.deepEqual(Object.keys(p.body.data).sort(), ['html', 'subject', 'text']);
    assert.doesNotMatch(p.body.data.html, /\/t\/|\/u\/|width="1" height="1"/);
    assert.match(p.body.data.html, /href="#">Unsubscribe/);
    const sent = await client.post(`/campaigns/${c.id}/test`, { emails: ['dash@tests.test'] });
    assert.deepEqual(sent.body, { success: true, data: { sent: 1 } });
    await sink.waitFor(() => (sink.counts.get('dash@tests.test') ?? 0) >= 1);
    assert.equal(sink.messages.find((m) => m.to.includes('dash@tests.test'))!.parsed!.subject, '[Test] T');
    const report = await client.get(`/campaigns/${c.id}/report`);
    assert.equal(report.body.data.stats.sent, 0);
    const bad = await client.post(`/campaigns/${c.id}/test`, { emails: [] });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.emails);
  });

  test('campaign-templates: three MJML starters that compile and render with Liquid', async () => {
    const { client } = await signedIn(s);
    const list = (await client.get('/campaign-templates')).body.data.templates;
    assert.deepEqual(
      list.map((t: any) => t.id),
      ['newsletter', 'announcement', 'digest'],
    );
    for (const t of list) {
      assert.equal(t.content_format, 'mjml');
      const r = await client.post('/campaigns/render', {
        subject: 'x',
        content_format: 'mjml',
        content_source: t.content_source,
      });
      assert.equal(r.status, 200, `${t.id}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.data.html, /preview@example.com/, t.id);
    }
  });
});

describe('dashboard reports and overview', () => {
  test('list rows with rates, progress, report, recipients (state filter) and CSV, overview', async () => {
    const { client, accountId } = await signedIn(s);
    const key = await s.newKey(accountId);
    const api = restClient(s.url, key.key);
    const sent = await sendCampaignTo(s.db, api, accountId, ['a@rep.test', 'b@rep.test', 'c@rep.test', 'd@rep.test']);
    const a = sent.subscriberIds.get('a@rep.test')!;
    await recordOpen(s.db, { campaign_id: sent.campaignId, subscriber_id: a });
    await recordClick(s.db, { campaign_id: sent.campaignId, subscriber_id: a }, 0);
    await recordClick(s.db, { campaign_id: sent.campaignId, subscriber_id: sent.subscriberIds.get('b@rep.test')! }, 0);

    const row = (await client.get('/campaigns')).body.data.campaigns[0];
    assert.equal(row.id, sent.campaignId);
    assert.equal(row.recipients, 4);
    assert.equal(row.sent, 4);
    assert.equal(row.unique_opens, 2, 'a click counts as an open');
    assert.equal(row.open_rate, 0.5);
    assert.equal(row.click_rate, 0.5);
    assert.equal(row.audience.length, 1);

    const progress = (await client.get(`/campaigns/${sent.campaignId}/progress`)).body.data;
    assert.equal(progress.status, 'sent');
    assert.equal(progress.total, 4);
    assert.equal(progress.sent, 4);
    assert.equal(progress.per_minute, 4);

    const report = (await client.get(`/campaigns/${sent.campaignId}/report`)).body.data;
    assert.equal(report.stats.clicks, 2);
    assert.deepEqual(report.links, [{ link_id: '0', url: 'https://example.org/page', clicks: 2, unique_clicks: 2 }]);
    assert.equal(report.timeline.length, 1);
    assert.deepEqual([report.timeline[0].opens, report.timeline[0].clicks], [1, 2]);

    const recips = (await client.get(`/campaigns/${sent.campaignId}/recipients?state=clicked&per_page=10`)).body.data;
    assert.equal(recips.pagination.total_count, 2);
    assert.deepEqual(Object.keys(recips.recipients[0]).sort(), [
      'email',
      'failure',
      'smtp_code',
      'smtp_reply',
      'smtp_status',
      'state',
      'subscriber_id',
      'updated_at',
    ]);
    assert.equal((await client.get(`/campaigns/${sent.campaignId}/recipients?state=nope`)).status, 400);
    const csv = await client.get(`/campaigns/${sent.campaignId}/recipients.csv?state=clicked`);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.equal(String(csv.body).trim().split('\r\n').length, 3);

    const ov = (await client.get('/overview')).body.data;
    for (const k of ['total', 'active', 'unsubscribed', 'bounced', 'limit', 'usage_percentage']) assert.ok(k in ov, k);
    assert.equal(ov.growth.length, 30);
    assert.equal(ov.growth[29].total, 4);
    assert.equal(ov.growth[29].new, 4);
    assert.equal(ov.recent_campaigns[0].id, sent.campaignId);
    assert.deepEqual(ov.rates, { sent_30d: 4, bounce_rate: 0, complaint_rate: 0 });
    // the growth per day is kept between reads; a new subscriber empties it
    assert.equal((await client.post('/subscribers', { email: 'newest@example.com' })).status, 201);
    const again = (await client.get('/overview')).body.data;
    assert.deepEqual([again.growth[29].total, again.growth[29].new], [5, 5]);
  });
});
