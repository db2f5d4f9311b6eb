// REST /api/v1/external/segments (our addition; "Segment"): create, list, get, update, delete and
// members, with the envelope, the field map on validation, scopes subscribers:read / subscribers:write,
// and another account's id → 404 like a missing one.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';
const ACTIVE = { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] };

const account = (scopes = ['*']) => s.restAccount({ scopes });

describe('REST segments', () => {
  test('POST /segments → 201 {id, name, filter, subscriber_count, created_at, updated_at}', async () => {
    const { api } = await account();
    await api.post('/subscribers', { email: 'a@x.co' });
    const b = await api.post('/subscribers', { email: 'b@x.co' });
    await api.put(`/subscribers/${b.body.data.id}`, { status: 'unsubscribed' });
    const res = await api.post('/segments', { name: 'Active', filter: ACTIVE });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body.data).sort(), [
      'created_at',
      'filter',
      'id',
      'name',
      'subscriber_count',
      'updated_at',
    ]);
    assert.equal(res.body.data.subscriber_count, 1);
    assert.deepEqual(res.body.data.filter, ACTIVE);
  });

  test('POST /segments › 400 with the field map naming the rule; 409 for a duplicate name', async () => {
    const { api } = await account();
    const bad = await api.post('/segments', {
      name: 'X',
      filter: { match: 'all', rules: [{ field: 'email', operator: 'gt', value: 'a' }] },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
    assert.deepEqual(bad.body.data, { 'filter.rules.0.operator': ['Operator gt is not valid for field email'] });
    const noFilter = await api.post('/segments', { name: 'X' });
    assert.equal(noFilter.status, 400);
    assert.ok(noFilter.body.data.filter);
    assert.equal((await api.post('/segments', { name: 'X', filter: ACTIVE })).status, 201);
    const dup = await api.post('/segments', { name: 'x', filter: ACTIVE });
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.body, { success: false, error: 'A segment with this name already exists' });
  });

  test('POST /segments › a hostile 8,000-level filter is a 400 naming the depth limit, not a stack overflow', async () => {
    const { api } = await account();
    const n = 8000;
    const filter =
      '{"match":"all","rules":['.repeat(n) + '{"field":"status","operator":"eq","value":"active"}' + ']}'.repeat(n);
    const res = await api.post('/segments', `{"name":"deep","filter":${filter}}`);
    assert.equal(res.status, 400);
    assert.equal(
      res.body.error,
      'filter.rules.0.rules.0.rules.0.rules.0.rules.0: Rule groups can be nested at most 5 levels deep',
    );
  });

  test('GET /segments › list with counts and pagination; GET /segments/:id', async () => {
    const { api } = await account();
    await api.post('/subscribers', { email: 'a@x.co' });
    const one = await api.post('/segments', { name: 'One', filter: ACTIVE });
    await api.post('/segments', {
      name: 'Two',
      filter: { match: 'any', rules: [{ field: 'email', operator: 'ends_with', value: '@y.co' }] },
    });
    const list = await api.get('/segments?per_page=1&page=2');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.pagination, { current_page: 2, total_pages: 2, total_count: 2, per_page: 1 });
    assert.deepEqual(
      list.body.data.segments.map((x: any) => [x.name, x.subscriber_count]),
      [['One', 1]],
    );
    assert.equal((await api.get('/segments?page=0')).status, 400);
    const got = await api.get(`/segments/${one.body.data.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.data.name, 'One');
  });

  test('PUT /segments/:id changes name and/or filter; DELETE → message; then 404', async () => {
    const { api } = await account();
    const seg = (await api.post('/segments', { name: 'One', filter: ACTIVE })).body.data;
    const upd = await api.put(`/segments/${seg.id}`, {
      filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'bounced' }] },
    });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.data.name, 'One');
    assert.equal(upd.body.data.filter.rules[0].value, 'bounced');
    assert.equal((await api.put(`/segments/${seg.id}`, {})).status, 400);
    const del = await api.delete(`/segments/${seg.id}`);
    assert.deepEqual(del.body, { success: true, message: 'Segment deleted', data: { id: seg.id, deleted: true } });
    assert.deepEqual((await api.get(`/segments/${seg.id}`)).body, { success: false, error: 'Segment not found' });
  });

  test('GET /segments/:id/subscribers lists the matching subscribers with pagination', async () => {
    const { api } = await account();
    for (const email of ['ada@x.co', 'bob@x.co', 'ada2@y.co']) await api.post('/subscribers', { email });
    const seg = (
      await api.post('/segments', {
        name: 'Ada',
        filter: { match: 'all', rules: [{ field: 'email', operator: 'starts_with', value: 'ADA' }] },
      })
    ).body.data;
    const res = await api.get(`/segments/${seg.id}/subscribers`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.subscribers.map((x: any) => x.email),
      ['ada2@y.co', 'ada@x.co'],
    );
    assert.deepEqual(res.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 2, per_page: 25 });
  });

  test("another account's segment id, a missing id and a malformed id → 404 Segment not found", async () => {
    const a = await account();
    const b = await account();
    const seg = (await a.api.post('/segments', { name: 'Mine', filter: ACTIVE })).body.data;
    for (const id of [seg.id, MISSING, 'not-a-uuid']) {
      for (const res of [
        await b.api.get(`/segments/${id}`),
        await b.api.put(`/segments/${id}`, { name: 'x' }),
        await b.api.delete(`/segments/${id}`),
        await b.api.get(`/segments/${id}/subscribers`),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { success: false, error: 'Segment not found' });
      }
    }
    assert.equal((await a.api.get(`/segments/${seg.id}`)).status, 200);
  });

  test('scopes: reads need subscribers:read, writes subscribers:write (403 Forbidden)', async () => {
    const owner = await account();
    const seg = (await owner.api.post('/segments', { name: 'S', filter: ACTIVE })).body.data;
    const reader = restClient(s.url, (await s.newKey(owner.accountId, ['subscribers:read'])).key);
    const forms = restClient(s.url, (await s.newKey(owner.accountId, ['forms:*'])).key);
    assert.equal((await reader.get('/segments')).status, 200);
    assert.equal((await reader.get(`/segments/${seg.id}/subscribers`)).status, 200);
    const denied = await reader.post('/segments', { name: 'T', filter: ACTIVE });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, {
      success: false,
      error: 'Forbidden',
      message: 'API key lacks the required permission: subscribers:write',
    });
    assert.equal((await reader.put(`/segments/${seg.id}`, { name: 'T' })).status, 403);
    assert.equal((await reader.delete(`/segments/${seg.id}`)).status, 403);
    assert.equal(
      (await forms.get('/segments')).body.message,
      'API key lacks the required permission: subscribers:read',
    );
  });
});
