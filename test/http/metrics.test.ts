// GET /metrics through the real server: the token gate, the exposition format, and metrics that move when
// the work happens (a REST request, an import, a campaign send, a 429).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { automationServer, createAutomation, uniqueEmail } from '../support/automations.ts';
import { seedAudience } from '../support/campaigns.ts';
import { startReceiver } from '../support/receiver.ts';
import { startSink } from '../support/smtpSink.ts';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';

const TOKEN = 'metrics-test-token-0123456789';
const RATE_LIMIT = 20;
const MCP_LIMIT = 5;
const s = await startServer(fileScope, {
  METRICS_TOKEN: TOKEN,
  REST_RATE_LIMIT: RATE_LIMIT,
  MCP_RATE_LIMIT: MCP_LIMIT,
  WORKER_POLL_MS: 100,
});

async function scrape(): Promise<string> {
  const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  return res.text();
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('GET /metrics', () => {
  test('401 without a token, with a wrong one and with another scheme; 200 Prometheus text with it', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer ']) {
      const res = await fetch(`${s.url}/metrics`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401, String(authorization));
      const body = await res.text();
      assert.doesNotMatch(body, /mailgrove_/);
    }
    const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of [
      'mailgrove_http_request_duration_seconds',
      'mailgrove_http_requests_in_flight',
      'mailgrove_rate_limit_rejections_total',
      'mailgrove_process_cpu_user_seconds_total',
      'mailgrove_campaign_sent_last_minute',
      'mailgrove_import_rows_processed',
      'mailgrove_webhook_deliveries_pending',
      'mailgrove_automation_runs_active',
      'mailgrove_automation_runs',
      'mailgrove_webhook_attempts_total',
      'mailgrove_provider_backoff_seconds',
      'mailgrove_campaign_deferred_recipients',
    ])
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    assert.equal(value(text, 'mailgrove_metrics_query_failures_total'), 0, 'every scrape query answered');
    // the pool exists only on PostgreSQL; PGlite has one connection and no such gauge
    assert.equal(/^# TYPE mailgrove_db_pool_connections gauge/m.test(text), !!process.env.TEST_DATABASE_URL);
    // the scrape itself is in flight while it is being written
    assert.ok(value(text, 'mailgrove_http_requests_in_flight') >= 1);
  });

  test('a REST request grows the histogram of its route pattern, never of its raw URL', async () => {
    const { api, accountId } = await s.restAccount();
    const labels = { method: 'GET', route: '/api/v1/external/subscribers/:id', status: '404' };
    const before = value(await scrape(), 'mailgrove_http_request_duration_seconds_count', labels);
    const missing = '00000000-0000-4000-8000-000000000000';
    assert.equal((await api.get(`/subscribers/${missing}`)).status, 404);
    assert.equal((await api.get(`/subscribers/${missing}`)).status, 404);
    const text = await scrape();
    assert.equal(value(text, 'mailgrove_http_request_duration_seconds_count', labels), before + 2);
    assert.doesNotMatch(text, new RegExp(missing));
    assert.doesNotMatch(text, new RegExp(accountId));
  });

  test('a completed import moves the import counters', async () => {
    const { key } = await s.newAccount();
    const before = await scrape();
    const form = new FormData();
    form.append(
      'file',
      new Blob(['email\na@metrics.test\nb@metrics.test\nnot-an-email\n'], { type: 'text/csv' }),
      'l.csv',
    );
    const res = await fetch(`${s.url}/api/v1/external/subscribers/import-async`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(res.status, 200);
    const jobId = ((await res.json()) as any).data.job_id;
    await until('the import', async () => {
      const row = await s.db.selectFrom('imports').select('status').where('id', '=', jobId).executeTakeFirst();
      return row?.status === 'completed' ? true : undefined;
    });
    const after = await scrape();
    assert.equal(value(after, 'mailgrove_import_rows_processed'), value(before, 'mailgrove_import_rows_processed') + 3);
    assert.equal(value(after, 'mailgrove_import_rows_failed'), value(before, 'mailgrove_import_rows_failed') + 1);
    assert.equal(
      value(after, 'mailgrove_imports', { status: 'completed' }),
      value(before, 'mailgrove_imports', { status: 'completed' }) + 1,
    );
    assert.doesNotMatch(after, new RegExp(key));
    assert.doesNotMatch(after, /metrics\.test/, 'no address in the metrics');
  });

  test('a sent campaign shows in the ledger and the send rate', async () => {
    const { api, accountId } = await s.restAccount();
    const { groupId } = await seedAudience(s.db, accountId, 4, { domain: 'ledger-metrics.test' });
    const before = await scrape();
    const created = await api.post('/campaigns', {
      name: 'M',
      subject: 'Hello',
      content_html: '<p>x</p>',
      group_ids: [groupId],
    });
    const id = created.body.data.id;
    assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
    await until('the campaign to be sent', async () => {
      const row = await s.db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirst();
      return row?.status === 'sent' ? true : undefined;
    });
    // a scrape may answer with the previous ledger count while a slow one runs on: the next one has it
    const after = await until('the ledger in the metrics', async () => {
      const text = await scrape();
      return value(text, 'mailgrove_campaign_recipients', { campaign_id: id }) > 0 ? text : undefined;
    });
    assert.equal(value(after, 'mailgrove_campaign_recipients', { campaign_id: id, state: 'sent' }), 4);
    assert.equal(value(after, 'mailgrove_campaign_recipients', { campaign_id: id, state: 'queued' }), 0);
    assert.ok(value(after, 'mailgrove_campaign_sent_last_minute') >= 4);
    assert.doesNotMatch(after, /ledger-metrics\.test/);
  });

  test('a 429 from the REST rate limit counts as a rejection of the rest face', async () => {
    const { api } = await s.restAccount();
    const before = value(await scrape(), 'mailgrove_rate_limit_rejections_total', { face: 'rest' });
    let refused = 0;
    for (let i = 0; i < RATE_LIMIT + 3; i++) if ((await api.get('/groups')).status === 429) refused++;
    assert.ok(refused >= 3, `refused ${refused}`);
    const text = await scrape();
    assert.equal(value(text, 'mailgrove_rate_limit_rejections_total', { face: 'rest' }), before + refused);
    assert.equal(value(text, 'mailgrove_rate_limit_rejections_total', { face: 'mcp' }), 0, 'a REST 429 is not MCP');
    assert.equal(
      value(text, 'mailgrove_http_request_duration_seconds_count', { route: '/api/v1/external/groups', status: '429' }),
      refused,
    );
  });
});

describe('GET /metrics, MCP and worker-only instances', () => {
  test('a 429 from the MCP rate limit counts as a rejection of the mcp face', async () => {
    const { key } = await s.newAccount();
    const before = value(await scrape(), 'mailgrove_rate_limit_rejections_total', { face: 'mcp' });
    let refused = 0;
    for (let i = 0; i < MCP_LIMIT + 3; i++) {
      const res = await fetch(`${s.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
      });
      await res.text();
      if (res.status === 429) refused++;
    }
    assert.equal(refused, 3);
    const text = await scrape();
    assert.equal(value(text, 'mailgrove_rate_limit_rejections_total', { face: 'mcp' }), before + refused);
    assert.doesNotMatch(text, new RegExp(key));
  });

  test('a worker-only instance serves /metrics too, behind its token', async () => {
    const worker = await startServer(fileScope, { MAILGROVE_ROLE: 'worker', METRICS_TOKEN: TOKEN });
    assert.equal((await fetch(`${worker.url}/metrics`)).status, 401);
    const res = await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^# TYPE mailgrove_queue_waiting_jobs gauge/m);
    assert.equal(value(text, 'mailgrove_metrics_query_failures_total'), 0);
    assert.equal((await fetch(`${worker.url}/api/v1/external/groups`)).status, 404, 'no API on a worker');
  });
});

describe('GET /metrics without METRICS_TOKEN, sending through SMTP', () => {
  test('is open; a refused recipient shows by failure reason and reply class; registries stay per server', async (t) => {
    const sink = await startSink({
      parse: false,
      reply: (rcpt) => (rcpt.startsWith('r2@') ? [550, '5.1.1 <r2@refused-metrics.test>: no such user'] : undefined),
    });
    t.after(() => sink.close());
    const other = await startServer(fileScope, { SMTP_URL: sink.url, WORKER_POLL_MS: 100 });
    const res = await fetch(`${other.url}/metrics`);
    assert.equal(res.status, 200);
    const before = await res.text();
    assert.match(before, /^# TYPE mailgrove_http_request_duration_seconds histogram/m);
    // the first server's 429s are not counted here
    assert.equal(value(before, 'mailgrove_rate_limit_rejections_total', { face: 'rest' }), 0);

    const { api, accountId } = await other.restAccount();
    const { groupId } = await seedAudience(other.db, accountId, 3, { domain: 'refused-metrics.test' });
    const id = (
      await api.post('/campaigns', { name: 'R', subject: 'S', content_html: '<p>x</p>', group_ids: [groupId] })
    ).body.data.id;
    await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
    await until('the campaign to be sent', async () => {
      const row = await other.db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirst();
      return row?.status === 'sent' ? true : undefined;
    });
    const after = await until('the ledger in the metrics', async () => {
      const text = await (await fetch(`${other.url}/metrics`)).text();
      return value(text, 'mailgrove_campaign_recipients', { campaign_id: id }) > 0 ? text : undefined;
    });
    assert.equal(value(after, 'mailgrove_campaign_recipients', { campaign_id: id, state: 'sent' }), 2);
    assert.equal(value(after, 'mailgrove_campaign_recipients', { campaign_id: id, state: 'failed' }), 1);
    assert.equal(value(after, 'mailgrove_campaign_failures', { reason: 'bounced' }), 1);
    assert.equal(value(after, 'mailgrove_campaign_smtp_replies', { class: 'hard' }), 1);
    assert.equal(value(after, 'mailgrove_campaign_smtp_replies', { class: 'accepted' }), 2);
    assert.doesNotMatch(after, /refused-metrics\.test|no such user/);
  });
});

describe('GET /metrics: webhooks, automations and providers', () => {
  test('webhook attempts count by result; finished automation runs by status; a deferring provider by name', async () => {
    const { base } = await startReceiver();
    const { s: other } = await automationServer({ ALLOW_PRIVATE_WEBHOOK_URLS: true, WORKER_POLL_MS: 100 });
    const metrics = async () => (await fetch(`${other.url}/metrics`)).text();
    const before = await metrics();
    const { api } = await other.restAccount();

    for (const path of ['/ok', '/fail']) {
      const hook = (await api.post('/webhooks', { url: base + path, events: ['campaign.sent'] })).body.data;
      assert.equal((await api.post(`/webhooks/${hook.id}/test`)).status, 200);
    }

    const group = (await api.post('/groups', { name: 'Welcome' })).body.data;
    await createAutomation(api, {
      trigger: { type: 'joined_group', group_id: group.id },
      steps: [{ type: 'send_email', subject: 'Hi', content_html: '<p>Hi</p>' }],
    });
    await api.post('/subscribers', { email: uniqueEmail('metrics'), group_ids: [group.id] });

    await other.db
      .insertInto('provider_backoff')
      .values({ provider: 'gmail', level: 2, until: new Date(Date.now() + 60_000) })
      .execute();

    const after = await until('the automation run to complete', async () => {
      const text = await metrics();
      const completed = value(text, 'mailgrove_automation_runs', { status: 'completed' });
      return completed > value(before, 'mailgrove_automation_runs', { status: 'completed' }) ? text : undefined;
    });
    const attempts = (t: string, result: string) => value(t, 'mailgrove_webhook_attempts_total', { result });
    assert.equal(attempts(after, 'delivered') - attempts(before, 'delivered'), 1);
    assert.equal(attempts(after, 'failed') - attempts(before, 'failed'), 1, 'a test event is not retried');
    const left = value(after, 'mailgrove_provider_backoff_seconds', { provider: 'gmail' });
    assert.ok(left > 50 && left <= 60, `seconds left: ${left}`);
  });
});
