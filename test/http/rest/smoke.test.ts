import assert from 'node:assert/strict';
import { test } from 'node:test';
import { client, restClient, startServer } from '../../support/server.ts';

test('Health check › 200 with status ok, message, timestamp, version', async (t) => {
  const s = await startServer(t);
  const res = await client(s.url).get('/api/health');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ['message', 'status', 'timestamp', 'version']);
  assert.equal(res.body.status, 'ok');
});

test('Create subscriber › 201 and Get subscriber › 200 round trip', async (t) => {
  const s = await startServer(t);
  const { key } = await s.newAccount();
  const api = restClient(s.url, key);
  const created = await api.post('/subscribers', { email: 'Ada@Example.com', first_name: 'Ada' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const got = await api.get(`/subscribers/${created.body.data.id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.data.email, 'Ada@Example.com');
  const dup = await api.post('/subscribers', { email: 'ada@example.COM' });
  assert.equal(dup.status, 409);
  assert.deepEqual(dup.body, { success: false, error: 'Email already exists' });
});
