// Several instances on one PostgreSQL share each key's budget without Redis: the counts live in the
// database (RATE_LIMIT_STORE auto). Two real servers over one schema; PostgreSQL only (PGlite is one process).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { backend } from '../support/db.ts';
import { twoInstances } from '../support/instances.ts';
import { restClient } from '../support/server.ts';
import { mcpClient } from '../http/mcp/client.ts';

test(
  'two instances: the MCP and REST budgets of a key are one, refused on either',
  { skip: backend !== 'postgres' && 'PostgreSQL only' },
  async () => {
    const env = { MCP_RATE_LIMIT: 6, REST_RATE_LIMIT: 4, WORKERS: false };
    const { instances, newKey } = await twoInstances({ after }, [env, env]);
    const [a, b] = instances;
    const key = await newKey();

    const [ma, mb] = [mcpClient(a.url, key), mcpClient(b.url, key)];
    for (let i = 0; i < 6; i++) {
      const res = await (i % 2 ? mb : ma).rpc('ping');
      assert.equal(res.status, 200, `request ${i + 1}`);
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i), 'one count across both instances');
    }
    assert.equal((await ma.rpc('ping')).status, 429);
    assert.equal((await mb.rpc('ping')).status, 429);

    const [ra, rb] = [restClient(a.url, key), restClient(b.url, key)];
    for (let i = 0; i < 4; i++) assert.equal((await (i % 2 ? rb : ra).get('/subscribers')).status, 200);
    const refused = await rb.get('/subscribers');
    assert.equal(refused.status, 429);
    assert.ok(refused.body.data.retry_after >= 1);
  },
);
