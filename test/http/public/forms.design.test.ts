// A designed form on its public faces: the readable /f/<slug> address beside the id one, heading,
// description, button and colours on the hosted page, a consent checkbox whose text is kept on the
// subscriber, the browser's zone from the hidden field, the signed render time against fast bots, the
// "check your inbox" and "confirmed" messages, and the pop-up script. Hostile text stays text everywhere.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { renderedAt } from '../../../src/domain/forms/signups.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer({ after }, { FORM_MIN_FILL_SECONDS: 2 });
s.config.publicUrl = s.url;
const { api } = await s.restAccount();
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

const post = (path: string, body: Record<string, string>) =>
  fetch(`${s.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams(body),
  });
const old = () => renderedAt(s.config.secret, Date.now() - 10_000);
const subscriber = (email: string) =>
  s.db.selectFrom('subscribers').selectAll().where('email', '=', email).executeTakeFirst();

const form = await api.post('/forms', {
  name: 'Spring news',
  slug: 'Spring-News',
  fields: [{ key: 'first_name', label: `Name ${XSS}`, required: true }, { key: 'email' }],
  design: {
    heading: `Hello ${XSS}`,
    description: `Monthly ${XSS}`,
    button_text: `Join ${XSS}`,
    colors: { accent: '#AA0000', background: '#fafafa' },
    consent: { text: `I agree ${XSS}`, required: true },
    popup: { style: 'slide_in', trigger: 'scroll', scroll_percent: 40 },
  },
});
assert.equal(form.status, 201, JSON.stringify(form.body));
const f = form.body.data;

test('the slug address and the id address serve the same designed page; everything typed is escaped', async () => {
  assert.equal(f.slug, 'spring-news');
  assert.equal(f.url, `${s.url}/f/spring-news`);
  assert.match(f.embed_script, /<script src="http:\/\/127\.0\.0\.1:\d+\/f\/spring-news\/embed\.js" async><\/script>/);
  for (const path of ['/f/spring-news', '/f/SPRING-NEWS', `/f/${f.id}`]) {
    const res = await fetch(s.url + path);
    assert.equal(res.status, 200, path);
    const html = await res.text();
    assert.ok(!html.includes(XSS) && !html.includes('<img'), 'no markup from the design');
    assert.ok(html.includes('<h1>Hello &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</h1>'));
    assert.ok(html.includes('Monthly &lt;script&gt;'));
    assert.ok(html.includes('>Join &lt;script&gt;'));
    assert.ok(html.includes('button{background:#aa0000}'));
    // fields in the designer's order, the consent box after them, the hidden zone and render time
    assert.ok(html.indexOf('name="first_name"') < html.indexOf('name="email"'));
    assert.match(html, /<input type="checkbox" id="mg_consent" name="_consent" value="yes" required/);
    assert.match(html, /<input type="hidden" name="_tz" value=""><input type="hidden" name="_ts" value="\d+\.[\w-]+">/);
    assert.deepEqual(html.match(/<script[^>]*>/g), ['<script src="/f/assets/form.js">']);
  }
  assert.equal((await fetch(`${s.url}/f/no-such-form`)).status, 404);
  const script = await fetch(`${s.url}/f/assets/form.js`);
  assert.match(script.headers.get('content-type')!, /javascript/);
  assert.match(await script.text(), /resolvedOptions\(\)\.timeZone/);
});

test('consent is required when the design says so, and its text is kept on the subscriber; the zone is recorded', async () => {
  const refused = await post('/f/spring-news', { email: 'c@example.com', first_name: 'C', _ts: old() });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /Please tick this box to subscribe/);
  assert.equal(await subscriber('c@example.com'), undefined);
  const ok = await post('/f/spring-news', {
    email: 'c@example.com',
    first_name: 'C',
    _consent: 'yes',
    _tz: 'America/Chicago',
    _ts: old(),
  });
  assert.equal(ok.status, 200, await ok.text());
  const row = (await subscriber('c@example.com'))!;
  assert.equal(row.time_zone, 'America/Chicago');
  const notes = await s.db
    .selectFrom('subscriber_notes')
    .select('content')
    .where('subscriber_id', '=', row.id)
    .execute();
  assert.equal(notes.length, 1);
  assert.match(notes[0]!.content, /^Consent given on the form “Spring news” on \d{4}-\d{2}-\d{2}: I agree <script>/);
  // a zone the runtime does not know is left out, not refused
  await post(`/f/${f.id}`, { email: 'd@example.com', first_name: 'D', _consent: 'yes', _tz: 'Mars/Base', _ts: old() });
  assert.equal((await subscriber('d@example.com'))!.time_zone, null);
});

test('bots: a form sent back within FORM_MIN_FILL_SECONDS, or with a forged time, is answered and not kept', async () => {
  for (const [email, ts] of [
    ['fast@example.com', renderedAt(s.config.secret)],
    ['forged@example.com', `${Date.now() - 10_000}.AAAAAAAAAAAAAAAAAAAAAA`],
    ['junk@example.com', 'nonsense'],
  ] as const) {
    const res = await post('/f/spring-news', { email, first_name: 'B', _consent: 'yes', _ts: ts });
    assert.equal(res.status, 200);
    assert.equal(await subscriber(email), undefined, email);
  }
});

test('double opt-in: the “check your inbox” message after submit, the “confirmed” one after the link', async () => {
  const dbl = await api.post('/forms', {
    name: 'Dbl',
    double_opt_in: true,
    design: { check_inbox_message: `Look in your mail ${XSS}`, confirmed_message: 'All set, welcome!' },
  });
  const res = await post(`/f/${dbl.body.data.id}`, { email: 'dbl@example.com', _ts: old() });
  const html = await res.text();
  assert.match(html, /Look in your mail &lt;script&gt;/);
  const [mail] = await s.db.selectFrom('outbox').selectAll().where('to_addr', '=', 'dbl@example.com').execute();
  const link = /(http:\/\/[^\s"]+\/f\/confirm\/[A-Za-z0-9_\-.]+)/.exec(mail!.text ?? '')![1]!;
  assert.match(await (await fetch(link)).text(), /All set, welcome!/);
});

test('embed.js: a pop-up script built from validated values only; 404 for an unknown form', async () => {
  const res = await fetch(`${s.url}/f/spring-news/embed.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /javascript/);
  const js = await res.text();
  assert.ok(js.includes(`"url":"${s.url}/f/spring-news?embed=1"`));
  assert.ok(js.includes('"style":"slide_in","trigger":"scroll"'));
  assert.ok(!js.includes('<script>'), 'the heading is in the script only with < escaped');
  assert.ok(!/innerHTML|document\.write|eval\(/.test(js));
  assert.equal((await fetch(`${s.url}/f/nope-nope/embed.js`)).status, 404);
  const framed = await fetch(`${s.url}/f/spring-news?embed=1`);
  assert.match(await framed.text(), /action="\/f\/[0-9a-f-]{36}\?embed=1"/);
});

test('slugs and designs that do not fit are 400s naming the field; a taken slug is refused', async () => {
  for (const [body, field] of [
    [{ slug: 'a' }, 'slug'],
    [{ slug: 'has space' }, 'slug'],
    [{ slug: 'confirm' }, 'slug'],
    [{ slug: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }, 'slug'],
    [{ design: { colors: { accent: 'red;background:url(x)' } } }, 'design.colors.accent'],
    [{ design: { heading: '' } }, 'design.heading'],
    [{ design: { popup: { trigger: 'hover' } } }, 'design.popup.trigger'],
    [{ design: { script: 'x' } }, 'design'],
  ] as const) {
    const res = await api.post('/forms', { name: 'X', ...body });
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    assert.ok(
      Object.keys(res.body.data).some((k) => k.startsWith(field)),
      JSON.stringify(res.body.data),
    );
  }
  const taken = await api.post('/forms', { name: 'Other', slug: 'spring-news' });
  assert.equal(taken.status, 409, JSON.stringify(taken.body));
  const other = await s.restAccount();
  assert.equal((await other.api.post('/forms', { name: 'Other', slug: 'SPRING-NEWS' })).status, 409);
});
