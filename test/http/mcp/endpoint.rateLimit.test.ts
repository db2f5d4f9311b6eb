// spec "Limits": requests per minute per API key on the tool endpoint; exceeding gives 429 with retry_after.
// The server here runs with MCP_RATE_LIMIT=5 so the limit is reached quickly; the default (120) is checked
// through the RateLimit-Limit header in endpoint.test.ts.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startServer } from '../../support/server.ts';
import { mcpClient } from './client.ts';

const LIMIT = 5;
const s = await startServer({ after }, { MCP_RATE_LIMIT: LIMIT });

test('429 {message, retry_after} with Retry-After after MCP_RATE_LIMIT requests in a minute, while another key is unaffected', async () => {
  const a = await s.newAccount();
  const b = await s.newAccount();
  const ma = mcpClient(s.url, a.key);
  const mb = mcpClient(s.url, b.key);
  for (let i = 0; i < LIMIT; i++) {
    const res = await ma.rpc('ping');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), String(LIMIT - 1 - i));
  }
  const refused = await ma.rpc('ping');
  assert.equal(refused.status, 429);
  assert.deepEqual(Object.keys(refused.body).sort(), ['message', 'retry_after']);
  assert.equal(typeof refused.body.message, 'string');
  assert.ok(
    Number.isInteger(refused.body.retry_after) && refused.body.retry_after >= 1 && refused.body.retry_after <= 60,
    String(refused.body.retry_after),
  );
  assert.equal(refused.headers.get('retry-after'), String(refused.body.retry_after));
  assert.equal(refused.headers.get('ratelimit-limit'), String(LIMIT));
  assert.equal(refused.headers.get('ratelimit-remaining'), '0');
  // the other key has its own budget
  const other = await mb.rpc('ping');
  assert.equal(other.status, 200);
  assert.equal(other.headers.get('ratelimit-remaining'), String(LIMIT - 1));
});

test('a second key of the SAME account has its own budget (the limit is per key)', async () => {
  const a = await s.newAccount();
  const k2 = await s.newKey(a.accountId, ['*']);
  const m1 = mcpClient(s.url, a.key);
  for (let i = 0; i < LIMIT; i++) await m1.rpc('ping');
  assert.equal((await m1.rpc('ping')).status, 429);
  assert.equal((await mcpClient(s.url, k2.key).rpc('ping')).status, 200);
});

test('rate limit comes after auth: requests with a bad key are 401, not counted against anyone', async () => {
  const bad = mcpClient(s.url, `mailgrove_${'f'.repeat(32)}`);
  for (let i = 0; i < LIMIT + 2; i++) assert.equal((await bad.rpc('ping')).status, 401);
});

test(
  'retry_after counts down to when a slot frees: a refused request is allowed again after retry_after seconds',
  { timeout: 90_000, skip: !process.env.SLOW_TESTS && 'waits up to a minute; set SLOW_TESTS=1' },
  async () => {
    const a = await s.newAccount();
    const m = mcpClient(s.url, a.key);
    for (let i = 0; i < LIMIT; i++) await m.rpc('ping');
    const refused = await m.rpc('ping');
    await new Promise((r) => setTimeout(r, refused.body.retry_after * 1000 + 200));
    assert.equal((await m.rpc('ping')).status, 200);
  },
);
