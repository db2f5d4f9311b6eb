// REST /api/v1/external/groups (our addition; same domain rules as the group tools): the envelope,
// status codes, scopes groups:read / groups:write, and another account's id → 404.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';

async function api(scopes = ['*']) {
  const a = await s.newAccount({ scopes });
  return restClient(s.url, a.key);
}

describe('REST groups', () => {
  test('POST /groups → 201 with the group; duplicate name → 409; blank → 400 with the field map', async () => {
    const c = await api();
    const r = await c.post('/groups', { name: 'VIP' });
    assert.equal(r.status, 201);
    assert.equal(r.body.success, true);
    assert.equal(r.body.data.name, 'VIP');
    assert.equal(r.body.data.subscriber_count, 0);
    assert.deepEqual((await c.post('/groups', { name: 'vip' })).body, {
      success: false,
      error: 'A group with this name already exists',
    });
    assert.equal((await c.post('/groups', { name: 'vip' })).status, 409);
    const bad = await c.post('/groups', { name: '' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data, { name: ['Name is required'] });
  });

  test('GET /groups lists with counts and pagination; per_page over 100 is clamped; bad page → 400', async () => {
    const c = await api();
    const g = (await c.post('/groups', { name: 'B' })).body.data;
    await c.post('/groups', { name: 'A' });
    await c.post('/subscribers', { email: 'x@example.com', group_ids: [g.id] });
    const r = await c.get('/groups?per_page=500');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.data.groups.map((x: any) => [x.name, x.subscriber_count, x.active_count]),
      [
        ['A', 0, 0],
        ['B', 1, 1],
      ],
    );
    assert.deepEqual(r.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 });
    assert.equal((await c.get('/groups?page=zero')).status, 400);
  });

  test('GET/PUT/DELETE /groups/:id; unknown, non-UUID and other-account ids → 404 "Group not found"', async () => {
    const other = await api();
    const theirs = (await other.post('/groups', { name: 'Theirs' })).body.data;
    const c = await api();
    const g = (await c.post('/groups', { name: 'Mine' })).body.data;
    assert.equal((await c.get(`/groups/${g.id}`)).body.data.name, 'Mine');
    const put = await c.put(`/groups/${g.id}`, { name: 'Renamed' });
    assert.equal(put.status, 200);
    assert.equal(put.body.data.name, 'Renamed');
    for (const id of [MISSING, 'not-a-uuid', theirs.id]) {
      for (const res of [
        await c.get(`/groups/${id}`),
        await c.put(`/groups/${id}`, { name: 'X' }),
        await c.delete(`/groups/${id}`),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { success: false, error: 'Group not found' });
      }
    }
    const del = await c.delete(`/groups/${g.id}`);
    assert.deepEqual(del.body, { success: true, message: 'Group deleted', data: { id: g.id, deleted: true } });
    assert.equal((await c.get(`/groups/${g.id}`)).status, 404);
  });

  test('POST/DELETE /groups/:id/subscribers/:subscriberId and GET /groups/:id/subscribers', async () => {
    const other = await api();
    const theirSub = (await other.post('/subscribers', { email: 't@example.com' })).body.data;
    const c = await api();
    const g = (await c.post('/groups', { name: 'G' })).body.data;
    const sub = (await c.post('/subscribers', { email: 'm@example.com' })).body.data;
    const added = await c.post(`/groups/${g.id}/subscribers/${sub.id}`);
    assert.equal(added.status, 200);
    assert.equal(added.body.data.added, true);
    const members = await c.get(`/groups/${g.id}/subscribers`);
    assert.deepEqual(
      members.body.data.subscribers.map((x: any) => x.email),
      ['m@example.com'],
    );
    assert.equal(members.body.data.pagination.total_count, 1);
    assert.deepEqual((await c.post(`/groups/${g.id}/subscribers/${theirSub.id}`)).body, {
      success: false,
      error: 'Subscriber not found',
    });
    assert.equal((await c.get(`/groups/${MISSING}/subscribers`)).status, 404);
    const removed = await c.delete(`/groups/${g.id}/subscribers/${sub.id}`);
    assert.equal(removed.body.data.removed, true);
    assert.equal((await c.get(`/groups/${g.id}/subscribers`)).body.data.pagination.total_count, 0);
  });

  test('scopes: groups:read may list and read, not write (403 Forbidden); subscribers:* may not read groups', async () => {
    const owner = await s.newAccount();
    const g = (await restClient(s.url, owner.key).post('/groups', { name: 'G' })).body.data;
    const ro = restClient(s.url, (await s.newKey(owner.accountId, ['groups:read'])).key);
    assert.equal((await ro.get('/groups')).status, 200);
    assert.equal((await ro.get(`/groups/${g.id}`)).status, 200);
    const denied = await ro.post('/groups', { name: 'New' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, {
      success: false,
      error: 'Forbidden',
      message: 'API key lacks the required permission: groups:write',
    });
    assert.equal((await ro.delete(`/groups/${g.id}`)).status, 403);
    const subs = restClient(s.url, (await s.newKey(owner.accountId, ['subscribers:*'])).key);
    assert.equal((await subs.get('/groups')).status, 403);
  });
});
