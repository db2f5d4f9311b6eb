// TRUST_PROXY off (the default): X-Forwarded-For cannot pick the client IP, so a client cannot step
// around the per-IP form limit by sending a new header value with every submission.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { client, restClient, startServer } from '../support/server.ts';

const s = await startServer({ after });

test('TRUST_PROXY off › a new X-Forwarded-For per request still hits the per-IP form limit (11th → 429)', async () => {
  const a = await s.newAccount();
  const form = (await restClient(s.url, a.key).post('/forms', { name: 'Newsletter' })).body.data;
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const res = await client(s.url).post(
      `/f/${form.id}`,
      { email: `x${i}@example.com` },
      { accept: 'application/json', 'x-forwarded-for': `198.51.100.${i + 1}` },
    );
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
});
