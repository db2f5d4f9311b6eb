// /app/api groups, bulk actions and export: the same domain functions as REST (counts, the name rule,
// events), a viewer may read and export but not change, and another account's group is a 404.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after });

describe('dashboard groups', () => {
  test('list with counts, create, rename, delete; duplicate name → 409; blank → 400', async () => {
    const { client } = await signedIn(s);
    const g = (await client.post('/groups', { name: 'VIP' })).body.data;
    assert.equal((await client.post('/groups', { name: 'vip' })).status, 409);
    assert.deepEqual((await client.post('/groups', { name: ' ' })).body.data, { name: ['Name is required'] });
    const a = (await client.post('/subscribers', { email: 'a@example.com' })).body.data;
    const b = (await client.post('/subscribers', { email: 'b@example.com' })).body.data;
    const added = await client.post('/subscribers/bulk', { action: 'add_to_group', group_id: g.id, ids: [a.id, b.id] });
    assert.deepEqual(added.body, { success: true, data: { affected: 2 } });
    await client.post('/subscribers/bulk', { action: 'unsubscribe', ids: [b.id] });
    const list = await client.get('/groups');
    assert.deepEqual(
      list.body.data.groups.map((x: any) => [x.name, x.subscriber_count, x.active_count]),
      [['VIP', 2, 1]],
    );
    assert.equal((await client.put(`/groups/${g.id}`, { name: 'Best' })).body.data.name, 'Best');
    assert.equal((await client.delete(`/groups/${g.id}`)).status, 200);
    assert.equal((await client.get(`/groups/${g.id}`)).status, 404);
    assert.equal((await client.get('/subscribers')).body.data.pagination.total_count, 2);
  });

  test('export with the list filters; a viewer reads and exports but cannot change; other accounts → 404', async () => {
    const owner = await signedIn(s);
    await owner.client.post('/subscribers', { email: 'ada@example.com', first_name: 'Ada' });
    await owner.client.post('/subscribers', { email: 'bob@example.com' });
    const csv = await owner.client.get('/subscribers/export?search=ada');
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.deepEqual(
      (csv.body as string)
        .trimEnd()
        .split('\r\n')
        .map((l) => l.split(',')[0]),
      ['email', 'ada@example.com'],
    );
    assert.equal((await owner.client.get('/subscribers/export?status=nope')).status, 400);

    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.get('/groups')).status, 200);
    assert.equal((await viewer.client.get('/subscribers/export')).status, 200);
    assert.equal((await viewer.client.post('/groups', { name: 'X' })).status, 403);
    assert.equal((await viewer.client.post('/subscribers/bulk', { action: 'delete', filter: {} })).status, 403);

    const other = await signedIn(s);
    const theirs = (await other.client.post('/groups', { name: 'Theirs' })).body.data;
    assert.equal((await owner.client.put(`/groups/${theirs.id}`, { name: 'Mine' })).status, 404);
    assert.equal((await owner.client.delete(`/groups/${theirs.id}`)).status, 404);
    const bulk = await owner.client.post('/subscribers/bulk', {
      action: 'add_to_group',
      group_id: theirs.id,
      filter: {},
    });
    assert.equal(bulk.status, 404);
  });
});
