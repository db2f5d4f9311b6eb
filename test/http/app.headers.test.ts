// The security headers of every answer (@fastify/helmet in app.ts): nosniff, the referrer policy and HSTS
// (PUBLIC_URL is https here) on JSON, CSV, pages, assets and errors alike; a CSP allowing nothing where
// the answer is not a page, and the pages' own CSPs exactly as they wrote them, each sent once.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { WEB_DIST } from '../../src/http/dashboard/spa.ts';
import { FORM_PAGE_CSP } from '../../src/http/public/formPages.ts';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';
import { signedIn } from './dashboard/session.ts';

const s = await startServer(fileScope, { PUBLIC_URL: 'https://mail.example.test' });
const { key, api } = await s.restAccount();
const dash = (await signedIn(s)).client;

const DASHBOARD_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const NOTHING_CSP = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'";

const get = (path: string, headers: Record<string, string> = {}) => fetch(s.url + path, { headers });

function common(what: string, h: Headers) {
  assert.equal(h.get('x-content-type-options'), 'nosniff', what);
  assert.equal(h.get('strict-transport-security'), 'max-age=31536000; includeSubDomains', what);
  // one CSP only: a second one would be joined to the first with a comma
  assert.ok(!h.get('content-security-policy')?.includes(','), `${what}: ${h.get('content-security-policy')}`);
}

test('JSON, CSV, assets and errors: nosniff, referrer policy, HSTS, a CSP that allows nothing', async () => {
  const asset = readdirSync(WEB_DIST + 'assets').find((f) => f.endsWith('.js'));
  const answers: [string, Response][] = [
    ['health', await get('/api/health')],
    ['REST JSON', await get('/api/v1/external/campaigns', { authorization: `Bearer ${key}` })],
    ['REST error', await get('/api/v1/external/campaigns')],
    ['not found', await get('/nothing-here')],
    [
      'dashboard API',
      await get('/app/api/campaigns', { cookie: `mailgrove_session=${dash.jar.get('mailgrove_session')}` }),
    ],
    ['OpenAPI document', await get('/api/v1/openapi.json')],
    ...(asset ? [['dashboard script', await get(`/assets/${asset}`)] as [string, Response]] : []),
  ];
  for (const [what, r] of answers) {
    await r.arrayBuffer();
    common(what, r.headers);
    assert.equal(r.headers.get('referrer-policy'), 'same-origin', what);
    assert.equal(r.headers.get('content-security-policy'), NOTHING_CSP, what);
  }
});

test('CSV downloads stay attachments, with nosniff', async () => {
  assert.equal((await api.post('/subscribers', { email: 'csv@example.com' })).status, 201);
  const r = await get('/api/v1/external/subscribers/export', { authorization: `Bearer ${key}` });
  assert.equal(r.status, 200);
  assert.match(await r.text(), /csv@example\.com/);
  assert.equal(r.headers.get('content-disposition'), 'attachment; filename="subscribers.csv"');
  common('CSV', r.headers);
});

test('the pages keep their own CSP exactly: dashboard, API docs, hosted form, unsubscribe', async () => {
  const page = await get('/');
  await page.text();
  common('dashboard', page.headers);
  assert.equal(page.headers.get('content-security-policy'), DASHBOARD_CSP);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.equal(page.headers.get('referrer-policy'), 'same-origin');

  const docs = await get('/api/docs');
  await docs.text();
  common('API docs', docs.headers);
  assert.match(
    docs.headers.get('content-security-policy')!,
    /^default-src 'none'; script-src 'self'; .*frame-ancestors 'none'$/,
  );

  const form = await api.post('/forms', { name: 'Signup' });
  assert.equal(form.status, 201, JSON.stringify(form.body));
  const hosted = await get(`/f/${form.body.data.id}`);
  assert.equal(hosted.status, 200);
  await hosted.text();
  common('hosted form', hosted.headers);
  assert.equal(hosted.headers.get('content-security-policy'), FORM_PAGE_CSP);
  assert.equal(hosted.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(hosted.headers.get('x-frame-options'), null, 'a hosted form may be embedded on the account’s site');

  const unsubscribe = await get('/u/not-a-token');
  await unsubscribe.text();
  common('unsubscribe', unsubscribe.headers);
  assert.equal(
    unsubscribe.headers.get('content-security-policy'),
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'",
  );
});

test('the dashboard’s own writes still pass its Origin check under the referrer policy', async () => {
  const r = await dash.raw(
    'POST',
    '/app/api/campaigns',
    { name: 'From the dashboard' },
    { headers: { origin: 'https://mail.example.test' } },
  );
  assert.equal(r.status, 201, JSON.stringify(r.body));
});
