// random bodies, headers, query strings and path ids at every REST route (and the admin
// API and health): never a 5xx, never a hang, always a JSON envelope. Seeded, so a failure replays with
// FUZZ_SEED=<seed>; FUZZ_COUNT sets the number of requests per test.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { ADMIN_TOKEN, restClient, startServer } from '../../support/server.ts';
import * as fuzz from '../../support/fuzz.ts';
import { createGroup } from '../../support/rows.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const COUNT = Number(process.env.FUZZ_COUNT ?? 1500);

const s = await startServer({ after }, { REST_RATE_LIMIT: 10_000_000, MCP_RATE_LIMIT: 10_000_000 });
const mine = await s.newAccount();
const theirs = await s.newAccount();
const narrow = await s.newAccount({ scopes: ['subscribers:read'] });
const api = restClient(s.url, mine.key);
await api.post('/fields', { key: 'company' });
await api.post('/fields', { key: 'age', type: 'number' });
const ids: string[] = [mine.accountId, theirs.accountId];
for (let i = 0; i < 4; i++) ids.push((await api.post('/subscribers', { email: `seed${i}@example.com` })).body.data.id);
ids.push((await restClient(s.url, theirs.key).post('/subscribers', { email: 'theirs@example.com' })).body.data.id);
ids.push(await createGroup(s.db, mine.accountId, 'Mine'), await createGroup(s.db, theirs.accountId, 'Theirs'));
ids.push(...(await api.get('/fields')).body.data.fields.map((f: { id: string }) => f.id));

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function send(req: Sent): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const r = request(`${s.url}${req.path}`, { method: req.method, headers: req.headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    r.on('timeout', () => r.destroy(new Error('no answer within 10 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

function randomRequest(r: fuzz.Rng, route: fuzz.Route): Sent {
  const method = r.chance(0.85) ? r.pick(route.methods) : r.pick(fuzz.METHODS);
  const path = route.path.replace(/:[A-Za-z]+/g, () => fuzz.pathId(r, ids)) + fuzz.queryString(r, ids);
  const admin = route.path.startsWith('/admin/');
  const headers: Record<string, string> = {};
  const auth = r.next();
  if (auth < 0.75) headers.authorization = `Bearer ${admin ? ADMIN_TOKEN : r.chance(0.85) ? mine.key : narrow.key}`;
  else if (auth < 0.9)
    headers.authorization = r.pick([
      'Bearer',
      'Basic abc',
      `Bearer ${theirs.key}x`,
      'Bearer mailgrove_00000000000000000000000000000000',
      `bearer ${mine.key}`,
      'Bearer \u00ff',
    ]);
  const body = method === 'GET' || method === 'HEAD' ? (r.chance(0.05) ? '{}' : undefined) : fuzz.body(r, ids);
  const type = fuzz.contentType(r);
  if (type && (body !== undefined || r.chance(0.2))) headers['content-type'] = type;
  if (r.chance(0.05)) headers['content-encoding'] = r.pick(['gzip', 'br', 'identity', 'bogus']);
  if (r.chance(0.05)) headers['x-forwarded-for'] = r.pick(['::1', 'garbage', '1.2.3.4, 5.6.7.8', '999.999.999.999']);
  if (r.chance(0.05)) headers.accept = r.pick(['text/html', 'application/xml', '*/*', '']);
  // an explicit length: Node sends a GET/DELETE body without one, which reads as a second, broken request
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return { method, path, headers, body };
}

/** The contract every answer keeps, whatever was sent. */
function problemWith(req: Sent, res: { status: number; type: string; text: string }): string | undefined {
  if (res.status >= 500) return `status ${res.status}`;
  if (req.method === 'HEAD' || res.status === 204) return undefined;
  // exports answer CSV when they succeed; their failures are the envelope like any other route's
  if (res.status === 200 && res.type.startsWith('text/csv')) return undefined;
  if (!res.type.startsWith('application/json')) return `content-type ${res.type}`;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  if (req.path.startsWith('/api/health') && req.method === 'GET')
    return ['ok', 'down'].includes(body.status) ? undefined : 'health without status';
  if (typeof body.success !== 'boolean') return 'no success flag';
  if (!body.success && typeof body.error !== 'string') return 'failure without error text';
  return undefined;
}

async function run(routes: fuzz.Route[], seed: number) {
  assert.ok(routes.length > 0);
  const r = fuzz.rng(seed);
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < COUNT && failures.length < 15) {
      next++;
      const req = randomRequest(r, r.pick(routes));
      let problem: string | undefined;
      let answer = '';
      try {
        const res = await send(req);
        problem = problemWith(req, res);
        answer = res.text.slice(0, 300);
      } catch (err) {
        problem = (err as Error).message;
      }
      if (problem)
        failures.push(
          `${problem}: ${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers)} body=${JSON.stringify(req.body?.slice(0, 200))} → ${answer}`,
        );
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  assert.deepEqual(failures, [], `seed ${seed}: replay with FUZZ_SEED=${seed}`);
}

const all = fuzz.routesOf(s.running.app);
// routes with a known 5xx, kept out of the random run and tested by name below (as todo) until fixed
const KNOWN_5XX: string[] = [];
const OURS =
  /^\/(api\/health|api\/v1\/external\/(test-auth|subscribers(\/stats|\/:id)?|fields(\/:id)?)|admin\/v1\/.*)$/;

describe('Fuzz', () => {
  test(`Fuzz › spec routes, fields and the admin API: no 5xx, always the JSON envelope (seed ${SEED})`, async () => {
    const routes = all.filter((rt) => OURS.test(rt.path));
    assert.ok(routes.length >= 10, JSON.stringify(routes));
    await run(routes, SEED);
    const polluted = ({} as Record<string, unknown>).polluted;
    assert.equal(polluted, undefined, 'no prototype pollution');
    assert.equal((await api.get('/test-auth')).status, 200, 'the server still answers');
  });

  test(`Fuzz › every other REST route: no 5xx, always the JSON envelope (seed ${SEED + 1})`, async () => {
    const routes = all.filter(
      (rt) => rt.path.startsWith('/api/v1/external/') && !OURS.test(rt.path) && !KNOWN_5XX.includes(rt.path),
    );
    if (routes.length === 0) return;
    await run(routes, SEED + 1);
  });

  test('Fuzz › import-async with a multipart content type but no boundary → 400, not 500', async () => {
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=x']) {
      const res = await api.post('/subscribers/import-async', 'email\na@example.com', { 'content-type': type });
      assert.equal(res.status, 400, `${type}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.success, false);
    }
  });
});
