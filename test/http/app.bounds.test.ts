// Hostile documents at every door that renders content: REST, MCP and the dashboard, campaigns and
// automations. Each is answered with a 4xx naming the problem within 2 s, while GET /api/health, polled
// all along, stays under 500 ms (under 2 s when the machine, not the server's loop, is the slow part); nothing ends in a 500 or a JSON-RPC -32603 (the server's error log is
// watched by startServer), and the process's memory comes back once the run is over.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';
import { mcpClient } from './mcp/client.ts';
import { signedIn } from './dashboard/session.ts';

const s = await startServer(fileScope);
const rest = await s.restAccount();
const mcp = mcpClient(s.url, rest.key);
const dash = (await signedIn(s)).client;

const ANSWER_MS = 2_000;
const HEALTH_MS = 500;
/** an event-loop delay this long inside one health poll means the server's loop, not the machine, was slow */
const LOOP_STALL_MS = 100;

const HOSTILE_HTML: [name: string, html: string, message: RegExp][] = [
  ['150,000 nested elements', '<div>'.repeat(150_000), /nested too deeply.*300 levels/],
  ['100,000 nested and closed', '<b>'.repeat(100_000) + 'x' + '</b>'.repeat(100_000), /nested too deeply/],
  [
    '20,000 nested tables with links',
    '<table><tr><td><a href="https://e.co/x">l</a>'.repeat(20_000),
    /nested too deeply/,
  ],
  ['60,000 elements side by side', '<p>x</p>'.repeat(60_000), /too large: at most 20,000 elements/],
  [
    '80,000 attributes on one element',
    '<div ' + Array.from({ length: 80_000 }, (_, i) => `a${i}=""`).join(' ') + '>x</div>',
    /too many attributes/,
  ],
  ['300,000 unclosed tags', '<a '.repeat(300_000), /too many attributes/],
];

const mjmlDoc = (body: string) => `<mjml><mj-body>${body}</mj-body></mjml>`;
const SECTIONS_10K = mjmlDoc('<mj-section><mj-column><mj-text>Hello</mj-text></mj-column></mj-section>'.repeat(10_000));
const HOSTILE_MJML: [name: string, mjml: string, message: RegExp][] = [
  [
    'MJML with 100,000 nested elements in raw HTML',
    mjmlDoc(`<mj-raw>${'<div>'.repeat(100_000)}</mj-raw>`),
    /MJML nested too deeply/,
  ],
  [
    'MJML with sections nested in sections',
    mjmlDoc('<mj-section><mj-column><mj-text>'.repeat(20_000)),
    /MJML nested too deeply/,
  ],
  ['MJML with 10,000 sections', SECTIONS_10K, /MJML too large/],
];

const automation = (html: string) => ({
  name: 'Hostile',
  trigger: { type: 'subscriber_created' },
  steps: [{ type: 'send_email', subject: 'Hi', content_html: html }],
});

/** One way in: sends `doc` through it and says what came back. */
type Door = (doc: string) => Promise<{ status: number; message: string }>;

let restDraft: string;
let dashDraft: string;
let storedHostile: string;

const restDoor =
  (call: (doc: string) => Promise<{ status: number; body: any }>): Door =>
  async (doc) => {
    const r = await call(doc);
    return { status: r.status, message: JSON.stringify(r.body) };
  };

const mcpDoor =
  (tool: string, args: (doc: string) => object): Door =>
  async (doc) => {
    const r = await mcp.call(tool, args(doc));
    // a refused tool call is a tool error (isError), never a JSON-RPC error
    assert.equal(r.error, undefined, `${tool}: ${JSON.stringify(r.error)}`);
    return { status: r.isError ? 400 : 200, message: JSON.stringify(r.body) };
  };

const HTML_DOORS: [name: string, door: Door][] = [
  ['REST POST /campaigns', restDoor((doc) => rest.api.post('/campaigns', { name: 'H', content_html: doc }))],
  ['REST PUT /campaigns/:id', restDoor((doc) => rest.api.put(`/campaigns/${restDraft}`, { content_html: doc }))],
  ['MCP create_campaign', mcpDoor('create_campaign', (doc) => ({ name: 'H', content_html: doc }))],
  ['MCP update_campaign', mcpDoor('update_campaign', (doc) => ({ campaign_id: restDraft, content_html: doc }))],
  [
    'dashboard POST /campaigns',
    restDoor((doc) => dash.post('/campaigns', { name: 'H', content_format: 'html', content_source: doc })),
  ],
  [
    'dashboard PUT /campaigns/:id',
    restDoor((doc) => dash.put(`/campaigns/${dashDraft}`, { content_format: 'html', content_source: doc })),
  ],
  [
    'dashboard POST /campaigns/render',
    restDoor((doc) => dash.post('/campaigns/render', { content_format: 'html', content_source: doc })),
  ],
  ['REST POST /automations', restDoor((doc) => rest.api.post('/automations', automation(doc)))],
  ['MCP create_automation', mcpDoor('create_automation', automation)],
  ['dashboard POST /automations', restDoor((doc) => dash.post('/automations', automation(doc)))],
];

const MJML_DOORS: [name: string, door: Door][] = [
  [
    'dashboard POST /campaigns',
    restDoor((doc) => dash.post('/campaigns', { name: 'M', content_format: 'mjml', content_source: doc })),
  ],
  [
    'dashboard PUT /campaigns/:id',
    restDoor((doc) => dash.put(`/campaigns/${dashDraft}`, { content_format: 'mjml', content_source: doc })),
  ],
  [
    'dashboard POST /campaigns/render',
    restDoor((doc) => dash.post('/campaigns/render', { content_format: 'mjml', content_source: doc })),
  ],
];

/**
 * A POST announcing 10 MB that sends only its first 64 KB: the server must answer from the announced
 * length. (Writing all 10 MB from this process would block the event loop it shares with the server,
 * and the health budget would measure the test.)
 */
function announcedTenMegabytes(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
      req.destroy();
    });
    req.on('error', reject);
    req.write('{"name":"Big","content_html":"' + 'x'.repeat(64 * 1024));
  });
}

/**
 * GET /api/health every 25 ms from `before` to `after`: the slowest answer seen, and the slowest seen while
 * this process's event loop (the server's) was itself held up. The budget is about the second: a slow
 * answer while the loop ran freely is time the operating system gave to other processes (three test
 * files share two cores), not work the server did on its loop.
 */
const health = {
  slowest: 0,
  worst: '',
  slowestStalled: 0,
  worstStalled: 'none',
  during: 'warm-up',
  polls: 0,
  running: true,
  loop: Promise.resolve(),
};
const rss = { before: 0 };
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

before(async () => {
  restDraft = (await rest.api.post('/campaigns', { name: 'Draft', content_html: '<p>Hello</p>' })).body.data.id;
  const d = await dash.post('/campaigns', { name: 'Draft', content_format: 'html', content_source: '<p>Hi</p>' });
  dashDraft = d.body.data.id;
  // a campaign stored before the limits existed (written past the domain): previews still refuse it
  storedHostile = (await rest.api.post('/campaigns', { name: 'Old', content_html: '<p>Old</p>' })).body.data.id;
  await s.db
    .updateTable('campaigns')
    .set({ content_html: '<div>'.repeat(150_000) })
    .where('id', '=', storedHostile)
    .execute();
  // the render pool's threads started and MJML loaded: what is measured below is the documents, not warm-up
  const warm = await Promise.all([
    dash.post('/campaigns/render', { content_format: 'mjml', content_source: mjmlDoc('<mj-section></mj-section>') }),
    dash.post('/campaigns/render', { content_format: 'mjml', content_source: mjmlDoc('<mj-section></mj-section>') }),
  ]);
  for (const w of warm) assert.equal(w.status, 200, JSON.stringify(w.body));
  rss.before = process.memoryUsage().rss;
  health.loop = (async () => {
    while (health.running) {
      const t = performance.now();
      const r = await fetch(`${s.url}/api/health`);
      await r.arrayBuffer();
      assert.equal(r.status, 200);
      const ms = performance.now() - t;
      const loopMs = loopDelay.max / 1e6;
      const seen = `${Math.round(ms)} ms during: ${health.during} (loop max ${Math.round(loopMs)} ms)`;
      if (ms > health.slowest) [health.slowest, health.worst] = [ms, seen];
      if (loopMs >= LOOP_STALL_MS && ms > health.slowestStalled)
        [health.slowestStalled, health.worstStalled] = [ms, seen];
      loopDelay.reset();
      health.polls++;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
});

async function expectRefused(what: string, door: Door, doc: string, message: RegExp) {
  health.during = what;
  const t = performance.now();
  const r = await door(doc);
  const ms = performance.now() - t;
  assert.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status} ${r.message.slice(0, 300)}`);
  assert.match(r.message, message, what);
  assert.ok(ms < ANSWER_MS, `${what}: answered after ${Math.round(ms)} ms`);
}

describe('hostile documents at every door that renders', () => {
  for (const [doorName, door] of HTML_DOORS)
    test(`${doorName}: each hostile HTML document → 4xx naming the limit, within 2 s`, async () => {
      for (const [name, html, message] of HOSTILE_HTML)
        await expectRefused(`${doorName}, ${name}`, door, html, message);
    });

  for (const [doorName, door] of MJML_DOORS)
    test(`${doorName}: each hostile MJML document → 4xx naming the limit, within 2 s`, async () => {
      for (const [name, mjml, message] of HOSTILE_MJML)
        await expectRefused(`${doorName}, ${name}`, door, mjml, message);
    });

  test('four renders of MJML with 10,000 sections at once → four 400s within 2 s', async () => {
    const t = performance.now();
    const all = await Promise.all(
      [1, 2, 3, 4].map(() => dash.post('/campaigns/render', { content_format: 'mjml', content_source: SECTIONS_10K })),
    );
    for (const r of all) {
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error, /MJML too large/);
    }
    assert.ok(performance.now() - t < ANSWER_MS, `answered after ${Math.round(performance.now() - t)} ms`);
  });

  test('previews of content stored before the limits (REST, dashboard) → 400, not a stalled process', async () => {
    const dashboardOwned = await dash.post('/campaigns', { name: 'Old', content_source: '<p>x</p>' });
    await s.db
      .updateTable('campaigns')
      .set({ content_html: '<div>'.repeat(150_000) })
      .where('id', '=', dashboardOwned.body.data.id)
      .execute();
    await expectRefused(
      'REST POST /campaigns/:id/preview',
      restDoor(() => rest.api.post(`/campaigns/${storedHostile}/preview`, {})),
      '',
      /nested too deeply/,
    );
    await expectRefused(
      'dashboard POST /campaigns/:id/preview',
      restDoor(() => dash.post(`/campaigns/${dashboardOwned.body.data.id}/preview`, {})),
      '',
      /nested too deeply/,
    );
  });

  test('a 10 MB body → 413 at every face, at once', async () => {
    const session = `mailgrove_session=${dash.jar.get('mailgrove_session')}`;
    const doors: [string, string, Record<string, string>][] = [
      ['REST', '/api/v1/external/campaigns', { authorization: `Bearer ${rest.key}` }],
      ['MCP', '/mcp', { authorization: `Bearer ${rest.key}`, accept: 'application/json, text/event-stream' }],
      ['dashboard', '/app/api/campaigns/render', { cookie: session, 'x-mailgrove-csrf': '1' }],
    ];
    for (const [name, path, headers] of doors) {
      health.during = `a 10 MB body, ${name}`;
      const t = performance.now();
      assert.equal(await announcedTenMegabytes(path, headers), 413, name);
      assert.ok(performance.now() - t < ANSWER_MS, `${name}: ${Math.round(performance.now() - t)} ms`);
    }
  });

  test('a document just under the limits still saves and renders, off the event loop', async () => {
    const html =
      '<table><tr><td>' +
      '<div>'.repeat(250) +
      '<a href="https://example.com/a">a</a>' +
      '</div>'.repeat(250) +
      '</td></tr></table>' +
      '<p>Dear {{ subscriber.first_name }}, <a href="https://example.com/{{ forloop.index }}">more</a></p>'.repeat(
        100,
      ) +
      '<table><tr><td>x</td><td>y</td></tr></table>'.repeat(100);
    const r = await rest.api.post('/campaigns', { name: 'Big but fine', content_html: html });
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    const p = await rest.api.post(`/campaigns/${r.body.data.id}/preview`, {});
    assert.equal(p.status, 200);
    assert.match(p.body.data.text, /Preview/);
  });

  test('the health budget held throughout; the event-loop delay is in /metrics; memory came back', async (t) => {
    health.running = false;
    await health.loop;
    t.diagnostic(
      `${health.polls} health polls, the slowest ${health.worst}; with the loop held up: ${health.worstStalled}`,
    );
    assert.ok(health.polls > 10, `only ${health.polls} health polls ran`);
    assert.ok(health.slowestStalled < HEALTH_MS, `GET /api/health took ${health.worstStalled}`);
    assert.ok(health.slowest < ANSWER_MS, `GET /api/health took ${health.worst}`);
    const metrics = await fetch(`${s.url}/metrics`).then((r) => r.text());
    const plain = await fetch(`${s.url}/api/health`);
    assert.equal(plain.headers.get('strict-transport-security'), null, 'no HSTS while PUBLIC_URL is http');
    assert.match(metrics, /^mailgrove_nodejs_eventloop_lag_p99_seconds \d/m);
    assert.match(metrics, /^mailgrove_nodejs_eventloop_lag_max_seconds \d/m);
    const grown = (process.memoryUsage().rss - rss.before) / 1024 / 1024;
    t.diagnostic(`RSS grew by ${Math.round(grown)} MB over the run`);
    assert.ok(grown < 150, `RSS grew by ${Math.round(grown)} MB over the run`);
  });
});
