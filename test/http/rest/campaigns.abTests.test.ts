// A/B tests and resends end to end on the real server against an SMTP sink: two subject variants with
// test_percent 20 to 100 subscribers send exactly 10 + 10; opens through the real tracking pixel (a desktop
// browser's agent) decide, a privacy proxy's open does not count; the manual pick and the automatic one
// (its wait shortened in the database: a test-scaled clock) send the winner to the other 80, each once; a
// resend reaches exactly who has no human open.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';
import { startSink, type Received } from '../../support/smtpSink.ts';
import { mcpClient } from '../mcp/client.ts';

const sink = await startSink();
after(() => sink.close());
const s = await startServer(fileScope, {
  WORKER_POLL_MS: 100,
  SMTP_URL: sink.url,
  TRUST_PROXY: true,
  SCHEDULER_INTERVAL_MS: 200,
});
s.config.publicUrl = s.url;

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const to = (domain: string) => sink.messages.filter((m) => m.to[0]!.endsWith(`@${domain}`));
const subjects = (ms: Received[]) => ms.map((m) => m.parsed!.subject);
const pixel = (m: Received) => {
  const url = /src="([^"]*\/t\/o\/[^"]+)"/.exec(String(m.parsed!.html))?.[1];
  assert.ok(url, 'the message carries the tracking pixel');
  return url.replaceAll('&amp;', '&');
};
const count = (xs: (string | undefined)[], x: string) => xs.filter((y) => y === x).length;
const settle = () => new Promise((r) => setTimeout(r, 800));

async function abCampaign(api: any, groupId: string, winner_by: string) {
  const created = await api.post('/campaigns', {
    name: `A/B by ${winner_by}`,
    subject: 'Base subject',
    content_html: '<p>Hello {{ subscriber.first_name }}</p>',
    group_ids: [groupId],
    ab_test: {
      variants: [{ subject: 'Subject A' }, { subject: 'Subject B' }],
      test_percent: 20,
      winner_by,
      wait_hours: 1,
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.data.ab_test.winner, null);
  return created.body.data.id as string;
}

describe('A/B tests', () => {
  let sentCampaign = '';
  let humanOpeners = new Set<string>();

  test('10 + 10 test messages; human opens decide; the manual pick sends B to the other 80, each once', async () => {
    const { api, accountId } = await s.restAccount();
    const { groupId } = await seedAudience(s.db, accountId, 100, { domain: 'ab1.test' });
    const id = await abCampaign(api, groupId, 'manual');
    assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
    await sink.waitFor(() => to('ab1.test').length >= 20);
    await settle();
    const test = to('ab1.test');
    assert.equal(test.length, 20, 'only the test share is sent before a winner');
    assert.equal(count(subjects(test), 'Subject A'), 10);
    assert.equal(count(subjects(test), 'Subject B'), 10);

    const a = test.filter((m) => m.parsed!.subject === 'Subject A');
    const b = test.filter((m) => m.parsed!.subject === 'Subject B');
    for (const m of b.slice(0, 6))
      assert.equal((await fetch(pixel(m), { headers: { 'user-agent': DESKTOP } })).status, 200);
    await fetch(pixel(a[0]!), { headers: { 'user-agent': DESKTOP } });
    // Apple's proxy fetching another A message: an open, but nobody's interest
    await fetch(pixel(a[1]!), { headers: { 'x-forwarded-for': '17.58.63.4', 'user-agent': 'Mozilla/5.0' } });
    humanOpeners = new Set([...b.slice(0, 6), a[0]!].map((m) => m.to[0]!));

    const during = (await api.get(`/campaigns/${id}`)).body.data;
    assert.equal(during.status, 'sending');
    assert.deepEqual(
      during.ab_test.variants.map((v: any) => [v.subject, v.stats.sent, v.stats.human_opens]),
      [
        ['Subject A', 10, 1],
        ['Subject B', 10, 6],
      ],
    );
    assert.equal(during.ab_test.winner, null);
    assert.equal(during.ab_test.confidence.leader, 1);
    assert.ok(during.ab_test.confidence.confidence > 0.95, JSON.stringify(during.ab_test.confidence));

    assert.equal((await api.post(`/campaigns/${id}/ab-winner`, { variant: 5 })).status, 400, 'no such variant');
    const picked = await api.post(`/campaigns/${id}/ab-winner`, { variant: 1 });
    assert.equal(picked.status, 200, JSON.stringify(picked.body));
    assert.equal(picked.body.data.ab_test.winner, 1);
    assert.equal((await api.post(`/campaigns/${id}/ab-winner`, { variant: 0 })).status, 409, 'picked once');
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.equal(done.stats.sent, 100);
    const all = to('ab1.test');
    assert.equal(all.length, 100);
    assert.equal(count(subjects(all), 'Subject B'), 90, 'the other 80 got B');
    assert.equal(new Set(all.map((m) => m.to[0])).size, 100, 'each once');
    // the test share's stats stay the test's
    assert.equal(done.ab_test.variants[1].stats.sent, 10);
    const rows = (await api.get(`/campaigns/${id}/recipients?per_page=100`)).body.data.recipients;
    assert.ok(
      rows.every((r: any) => r.variant === 0 || r.variant === 1),
      'recipient rows carry their variant',
    );
    sentCampaign = id;
    (globalThis as any).abApi = api;
  });

  test('a resend reaches exactly the recipients without a human open', async () => {
    const api = (globalThis as any).abApi;
    const created = await api.post(`/campaigns/${sentCampaign}/resend`, { subject: 'Did you miss this?' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id;
    assert.equal(created.body.data.resend_of, sentCampaign);
    assert.equal(created.body.data.status, 'draft');
    const before = sink.messages.length;
    assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
    await waitForCampaign(api, id, (c) => c.status === 'sent');
    const resent = sink.messages.slice(before);
    assert.equal(resent.length, 93, '100 minus the 7 human openers (the proxy open does not count)');
    assert.ok(resent.every((m) => m.parsed!.subject === 'Did you miss this?'));
    assert.ok(resent.every((m) => !humanOpeners.has(m.to[0]!)));
    assert.equal(new Set(resent.map((m) => m.to[0])).size, 93);
    assert.equal((await api.post(`/campaigns/${id}/resend`, {})).status, 201, 'a sent resend can be resent too');
    const draft = await api.post(`/campaigns`, { name: 'x' });
    assert.equal((await api.post(`/campaigns/${draft.body.data.id}/resend`, {})).status, 409, 'a draft cannot');
  });

  test('the automatic winner: once the wait is over the scheduler sends the leader (by human opens) to the rest, once (MCP)', async () => {
    const { api, accountId, key } = await s.restAccount();
    const { groupId } = await seedAudience(s.db, accountId, 100, { domain: 'ab2.test' });
    const mcp = mcpClient(s.url, key);
    const created = await mcp.call('create_campaign', {
      name: 'Auto',
      subject: 'Base',
      content_html: '<p>Hi</p>',
      group_ids: [groupId],
      ab_test: {
        variants: [{ subject: 'Auto A' }, { subject: 'Auto B' }],
        test_percent: 20,
        winner_by: 'opens',
        wait_hours: 1,
      },
    });
    assert.equal(created.isError, false, JSON.stringify(created.body));
    const id = created.body.data.id;
    assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
    await sink.waitFor(() => to('ab2.test').length >= 20);
    const b = to('ab2.test').filter((m) => m.parsed!.subject === 'Auto B');
    await fetch(pixel(b[0]!), { headers: { 'user-agent': DESKTOP } });
    const a = to('ab2.test').filter((m) => m.parsed!.subject === 'Auto A');
    for (const m of a.slice(0, 3)) await fetch(pixel(m), { headers: { 'user-agent': 'Mozilla/5.0' } });
    await settle();
    assert.equal(to('ab2.test').length, 20, 'the rest waits for the wait');
    // the test-scaled clock: the hour is over now
    await sql`update campaigns set ab_decide_at = now() - interval '1 second' where id = ${id}::uuid`.execute(s.db);
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.equal(done.ab_test.winner, 1, 'B leads on human opens; A only had proxy opens');
    const all = to('ab2.test');
    assert.equal(all.length, 100);
    assert.equal(count(subjects(all), 'Auto B'), 90);
    assert.equal(new Set(all.map((m) => m.to[0])).size, 100);
    const got = await mcp.call('get_campaign', { campaign_id: id });
    assert.equal(got.isError, false, JSON.stringify(got.body));
    assert.equal(got.body.data.ab_test.winner, 1);
  });

  test('hostile input: bad A/B settings are 400 naming the field, nothing stored', async () => {
    const { api } = await s.restAccount();
    const bad = [
      { variants: [{ subject: 'x' }], test_percent: 20, winner_by: 'opens', wait_hours: 1 },
      { variants: [{}, {}, {}, {}, {}, {}], test_percent: 20, winner_by: 'opens', wait_hours: 1 },
      { variants: [{}, {}], test_percent: 0, winner_by: 'opens', wait_hours: 1 },
      { variants: [{}, {}], test_percent: 20, winner_by: 'luck', wait_hours: 1 },
      { variants: [{}, {}], test_percent: 20, winner_by: 'opens', wait_hours: 0.5 },
      { variants: [{}, {}], test_percent: 20, winner_by: 'opens', wait_hours: 169 },
      { variants: [{ subject: '{{ oops' }, {}], test_percent: 20, winner_by: 'opens', wait_hours: 1 },
      {
        variants: [{ content_format: 'mjml', content_source: '<mjml><mj-body><mj-nope/></mj-body></mjml>' }, {}],
        test_percent: 20,
        winner_by: 'opens',
        wait_hours: 1,
      },
      'nope',
    ];
    for (const ab_test of bad) {
      const res = await api.post('/campaigns', { name: 'Bad', ab_test });
      assert.equal(res.status, 400, `${JSON.stringify(ab_test)} → ${JSON.stringify(res.body)}`);
    }
    assert.equal((await api.get('/campaigns')).body.data.campaigns.length, 0);
  });
});
