// REST GET /subscribers/export (our addition): CSV of the list's filter, streamed in chunks; the columns,
// custom fields by key, quoting (formulas defused), bad filters → 400 before any byte, and only the account's own rows.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../support/server.ts';

const s = await startServer({ after });

async function seed(accountId: string, n: number, status: 'active' | 'unsubscribed' = 'active') {
  const rows = Array.from({ length: n }, (_, i) => ({
    account_id: accountId,
    email: `${status}${String(i).padStart(5, '0')}@example.com`,
    status,
    custom_fields: JSON.stringify({ plan: i % 2 ? 'pro' : 'free' }),
  }));
  await s.db.insertInto('subscribers').values(rows).execute();
}

describe('GET /subscribers/export', () => {
  test('columns, custom fields by key, quoting, and the list filters', async () => {
    const { api, accountId } = await s.restAccount();
    await api.post('/fields', { key: 'plan', type: 'text' });
    await api.post('/fields', { key: 'score', type: 'number' });
    const g = (await api.post('/groups', { name: 'G' })).body.data;
    await api.post('/subscribers', {
      email: 'ada@example.com',
      first_name: 'Ada, "the first"',
      last_name: 'Lovelace',
      phone: '+44 1',
      group_ids: [g.id],
      custom_fields: { score: 7 },
    });
    await api.post('/subscribers', { email: 'bob@example.com', first_name: 'Bob' });
    const other = await s.restAccount();
    await seed(other.accountId, 3);

    const r = await api.get('/subscribers/export');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/csv/);
    assert.match(r.headers.get('content-disposition')!, /attachment; filename="subscribers\.csv"/);
    const lines = (r.body as string).trimEnd().split('\r\n');
    assert.equal(lines[0], 'email,first_name,last_name,phone,status,created_at,plan,score');
    assert.equal(lines.length, 3);
    assert.match(
      lines[2]!,
      /^ada@example\.com,"Ada, ""the first""",Lovelace,'\+44 1,active,\d{4}-\d\d-\d\dT[^,]+Z,,7$/,
    );
    assert.match(lines[1]!, /^bob@example\.com,Bob,,,active,/);

    const inGroup = await api.get(`/subscribers/export?group_id=${g.id}&search=ada&status=active`);
    assert.deepEqual(
      (inGroup.body as string)
        .trimEnd()
        .split('\r\n')
        .map((l) => l.split(',')[0]),
      ['email', 'ada@example.com'],
    );
    void accountId;
  });

  test('5,000 rows come out in order across chunks, each once', async () => {
    const { api, accountId } = await s.restAccount();
    await seed(accountId, 4000);
    await seed(accountId, 1000, 'unsubscribed');
    const all = ((await api.get('/subscribers/export')).body as string).trimEnd().split('\r\n').slice(1);
    assert.equal(all.length, 5000);
    assert.equal(new Set(all.map((l) => l.split(',')[0])).size, 5000);
    const unsub = ((await api.get('/subscribers/export?status=unsubscribed')).body as string).trimEnd().split('\r\n');
    assert.equal(unsub.length, 1001);
  });

  test('a bad filter is a 400 with the field; the scope is subscribers:read', async () => {
    const { api } = await s.restAccount();
    const r = await api.get('/subscribers/export?status=gone');
    assert.equal(r.status, 400);
    assert.ok('status' in r.body.data);
    assert.equal((await api.get('/subscribers/export?group_id=x')).status, 400);
    const { api: noScope } = await s.restAccount({ scopes: ['groups:read'] });
    assert.equal((await noScope.get('/subscribers/export')).status, 403);
  });
});
