// /api/v1/external/warmup (our addition): warm-up plans of the account's sending domains — create with
// defaults, list, get, delete, bad input as 400 with the field map, a second plan for a domain as 409,
// another account's id as 404, the campaigns scopes — and the `warmup` field a sending campaign shows
// while its domain's cap holds recipients back.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { keysOf, restClient, startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';

const sink = await startSink({ parse: false });
after(() => sink.close());
const s = await startServer(fileScope, { WORKER_POLL_MS: 100, SMTP_URL: sink.url });
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('Warm-up plans', () => {
  test('create (defaults), get, list, delete', async () => {
    const { api } = await s.restAccount();
    const created = await api.post('/warmup', { domain: 'News.Example.COM', first_day_cap: 50, growth: 1.5 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const plan = created.body.data;
    assert.deepEqual(keysOf(plan), [
      'created_at',
      'days',
      'domain',
      'first_day_cap',
      'growth',
      'id',
      'start_date',
      'today',
    ]);
    assert.equal(plan.domain, 'news.example.com');
    assert.equal(plan.days, 10);
    assert.match(plan.start_date, /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(
      { ...plan.today, resets_at: typeof plan.today.resets_at },
      {
        day: 1,
        cap: 50,
        used: 0,
        resets_at: 'string',
      },
    );
    assert.ok(Date.parse(plan.today.resets_at) > Date.now());

    assert.deepEqual((await api.get(`/warmup/${plan.id}`)).body, { success: true, data: plan });
    assert.deepEqual((await api.get('/warmup')).body, {
      success: true,
      data: { plans: [plan], pagination: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 } },
    });
    assert.deepEqual((await api.delete(`/warmup/${plan.id}`)).body, {
      success: true,
      message: 'Warm-up plan deleted',
      data: { id: plan.id, deleted: true },
    });
    assert.equal((await api.get(`/warmup/${plan.id}`)).status, 404);
    assert.deepEqual((await api.get('/warmup')).body.data.plans, []);
  });

  test('bad input is a 400 naming the field; a second plan for the domain is a 409', async () => {
    const { api } = await s.restAccount();
    for (const [body, field] of [
      [{}, 'domain'],
      [{ domain: 'no spaces.example' }, 'domain'],
      [{ domain: 'ok.example', first_day_cap: -1 }, 'first_day_cap'],
      [{ domain: 'ok.example', growth: 'fast' }, 'growth'],
      [{ domain: 'ok.example', growth: 11 }, 'growth'],
      [{ domain: 'ok.example', days: 0 }, 'days'],
      [{ domain: 'ok.example', start_date: 'tomorrow' }, 'start_date'],
    ] as const) {
      const r = await api.post('/warmup', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.success, false);
      assert.ok(r.body.data?.[field], `${field}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await api.post('/warmup', [])).status, 400);
    assert.equal((await api.post('/warmup', { domain: 'twice.example' })).status, 201);
    const again = await api.post('/warmup', { domain: 'TWICE.example' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'A warm-up plan for this domain already exists');
  });

  test('another account’s plan, an unknown id and a malformed id are 404; the stranger’s list is empty', async () => {
    const owner = await s.restAccount();
    const stranger = await s.restAccount();
    const id = (await owner.api.post('/warmup', { domain: 'owned.example' })).body.data.id;
    for (const path of [`/warmup/${id}`, `/warmup/${MISSING}`, '/warmup/not-a-uuid']) {
      const get = await stranger.api.get(path);
      assert.equal(get.status, 404, path);
      assert.deepEqual(get.body, { success: false, error: 'Warm-up plan not found' });
      assert.equal((await stranger.api.delete(path)).status, 404, path);
    }
    assert.deepEqual((await stranger.api.get('/warmup')).body.data.plans, []);
    assert.equal((await owner.api.get(`/warmup/${id}`)).status, 200, 'the stranger deleted nothing');
  });

  test('campaigns:read lists, campaigns:write changes; other scopes are 403', async () => {
    const { accountId, api } = await s.restAccount();
    const reader = restClient(s.url, (await s.newKey(accountId, ['campaigns:read'])).key);
    const other = restClient(s.url, (await s.newKey(accountId, ['subscribers:*'])).key);
    const id = (await api.post('/warmup', { domain: 'scoped.example' })).body.data.id;
    assert.equal((await reader.get('/warmup')).status, 200);
    assert.equal((await reader.get(`/warmup/${id}`)).status, 200);
    assert.equal((await reader.post('/warmup', { domain: 'more.example' })).status, 403);
    assert.equal((await reader.delete(`/warmup/${id}`)).status, 403);
    assert.equal((await other.get('/warmup')).status, 403);
  });
});

describe('A campaign held back by a warm-up', () => {
  test('sends the day’s cap, stays sending and shows how many wait until when', async () => {
    const { accountId, api } = await s.restAccount();
    const plan = (await api.post('/warmup', { domain: 'held.example', first_day_cap: 3 })).body.data;
    const { groupId } = await seedAudience(s.db, accountId, 5, { domain: 'to-held.test' });
    const c = await api.post('/campaigns', {
      name: 'Held',
      subject: 'Hi',
      from_email: 'news@HELD.example',
      content_html: '<p>Hi</p>',
      group_ids: [groupId],
    });
    assert.equal((await api.post(`/campaigns/${c.body.data.id}/schedule`, { delivery: 'instant' })).status, 200);
    await waitForCampaign(api, c.body.data.id, (x) => x.warmup?.today.used === 3);
    const delivered = () => sink.messages.filter((m) => m.to.some((t) => t.endsWith('@to-held.test'))).length;
    await sink.waitFor(() => delivered() >= 3);
    await new Promise((r) => setTimeout(r, 600)); // several rounds of the send lanes
    assert.equal(delivered(), 3);
    // read once the cap's three are sent: between a lane's reservation and its claim the reserved rows count
    // as used and as waiting for a moment
    const held = (await api.get(`/campaigns/${c.body.data.id}`)).body.data;
    assert.equal(held.status, 'sending');
    assert.deepEqual(held.warmup, {
      domain: 'held.example',
      waiting: 2,
      resumes_at: plan.today.resets_at,
      today: { day: 1, cap: 3, used: 3, resets_at: plan.today.resets_at },
    });
    // ending the warm-up releases the rest
    await api.delete(`/warmup/${plan.id}`);
    const sent = await waitForCampaign(api, c.body.data.id, (x) => x.status === 'sent');
    assert.equal(sent.warmup, undefined);
    await sink.waitFor(() => delivered() >= 5);
    assert.equal(delivered(), 5);
  });
});
