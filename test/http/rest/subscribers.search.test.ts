// Searching by a full name: every word of the search must match email, first name or last name, on REST,
// MCP and the dashboard alike (one domain function answers all three).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../support/server.ts';
import { mcpClient } from '../mcp/client.ts';
import { signedIn } from '../dashboard/session.ts';

const s = await startServer({ after });

describe('List subscribers › search by several words', () => {
  test('"Ada Lovelace" finds Ada Lovelace on REST, MCP and the dashboard; every word must match', async () => {
    const { api, key, accountId } = await s.restAccount();
    await api.post('/subscribers', { email: 'countess@analytical.org', first_name: 'Ada', last_name: 'Lovelace' });
    await api.post('/subscribers', { email: 'ada@example.com', first_name: 'Ada', last_name: 'Byron' });
    await api.post('/subscribers', { email: 'grace@navy.mil', first_name: 'Grace', last_name: 'Hopper' });
    const rest = async (q: string) =>
      (await api.get(`/subscribers?search=${encodeURIComponent(q)}`)).body.data.subscribers
        .map((x: { email: string }) => x.email)
        .sort();
    assert.deepEqual(await rest('Ada Lovelace'), ['countess@analytical.org']);
    assert.deepEqual(await rest('  lovelace   ADA '), ['countess@analytical.org'], 'any order, any spacing');
    assert.deepEqual(await rest('ada analytical'), ['countess@analytical.org'], 'a first name and a part of the email');
    assert.deepEqual(await rest('Ada'), ['ada@example.com', 'countess@analytical.org'], 'one word as before');
    assert.deepEqual(await rest('Ada Hopper'), [], 'every word must match the same subscriber');
    assert.deepEqual(await rest('Ada %'), [], '% stays a literal in every word');
    const total = (await api.get('/subscribers?search=Ada%20Lovelace')).body.data.pagination.total_count;
    assert.equal(total, 1);

    const mcp = await mcpClient(s.url, key).call('list_subscribers', { search: 'Ada Lovelace' });
    assert.equal(mcp.isError, false);
    assert.deepEqual(
      mcp.body.data.map((x: { email: string }) => x.email),
      ['countess@analytical.org'],
    );

    const { client } = await signedIn(s, 'viewer', accountId);
    const dash = await client.get('/subscribers?search=Ada%20Lovelace');
    assert.equal(dash.status, 200);
    assert.deepEqual(JSON.stringify(dash.body).match(/countess@analytical\.org|ada@example\.com/g), [
      'countess@analytical.org',
    ]);
  });
});
