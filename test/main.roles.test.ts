// MAILGROVE_ROLE (serve --role): an api instance takes requests and runs no job, a worker instance runs
// the jobs and answers only its health checks. Together, on one PostgreSQL, they are one service.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { backend } from './support/db.ts';
import { twoInstances } from './support/instances.ts';
import { fileScope } from './support/scope.ts';
import { client, restClient, startServer } from './support/server.ts';

test('a worker instance answers its health checks and nothing else', async () => {
  const s = await startServer(fileScope, { MAILGROVE_ROLE: 'worker' });
  const http = client(s.url);
  assert.equal((await http.get('/api/health')).status, 200);
  assert.equal((await http.get('/api/health/ready')).status, 200);
  const { key } = await s.newAccount();
  assert.equal((await restClient(s.url, key).get('/subscribers')).status, 404);
  assert.equal((await client(s.url, key).post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' })).status, 404);
  assert.equal((await http.get('/app/api/setup')).status, 404);
});

test(
  'an api instance and a worker instance on one PostgreSQL: the import sent to one is run by the other',
  { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' },
  async () => {
    const { instances, newKey } = await twoInstances({ after }, [
      { MAILGROVE_ROLE: 'api' },
      { MAILGROVE_ROLE: 'worker' },
    ]);
    const [api] = instances;
    const key = await newKey();
    const form = new FormData();
    form.append('file', new Blob(['email\nada@example.com\ngrace@example.com\n'], { type: 'text/csv' }), 'l.csv');
    const res = await fetch(`${api.url}/api/v1/external/subscribers/import-async`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    const jobId = body.data.job_id;
    const rest = restClient(api.url, key);
    let status = 'processing';
    for (let i = 0; i < 200 && status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await rest.get(`/imports/${jobId}`)).body.data.status;
    }
    assert.equal(status, 'completed');
    assert.equal((await rest.get('/subscribers/stats')).body.data.total, 2);
  },
);
