// Spec "List subscribers" (query parameters, pagination object, list-item fields) and
// "Subscriber statistics"; REST list: per_page above 100 is clamped, bad numbers → 400.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { keysOf, restClient, startServer } from '../../support/server.ts';
import { createGroup } from '../../support/rows.ts';

const s = await startServer({ after });

const LIST_ITEM_FIELDS = ['created_at', 'email', 'first_name', 'id', 'last_name', 'status'];

/** n subscribers inserted in one statement: sub000@example.com … (the list is not what is under test here). */
async function seed(accountId: string, n: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
  const rows = Array.from({ length: n }, (_, i) => ({
    account_id: accountId,
    email: `sub${String(i).padStart(3, '0')}@example.com`,
    custom_fields: '{}',
    ...extra(i),
  }));
  await s.db
    .insertInto('subscribers')
    .values(rows as any)
    .execute();
}

const account = (opts: { limit?: number } = {}) => s.restAccount(opts);

describe('List subscribers', () => {
  test('List subscribers › 200 data = {subscribers: list items, pagination}, list items carry exactly the list fields', async () => {
    const { api } = await account();
    await api.post('/subscribers', { email: 'ada@example.com', first_name: 'Ada', phone: '+1', custom_fields: {} });
    const res = await api.get('/subscribers');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.equal(res.body.success, true);
    assert.deepEqual(keysOf(res.body.data), ['pagination', 'subscribers']);
    assert.deepEqual(keysOf(res.body.data.pagination), ['current_page', 'per_page', 'total_count', 'total_pages']);
    assert.equal(res.body.data.subscribers.length, 1);
    assert.deepEqual(keysOf(res.body.data.subscribers[0]), LIST_ITEM_FIELDS);
    assert.deepEqual(
      { ...res.body.data.subscribers[0], id: 0, created_at: 0 },
      { id: 0, created_at: 0, email: 'ada@example.com', first_name: 'Ada', last_name: null, status: 'active' },
    );
  });

  test('List subscribers › page default 1, per_page default 20; pagination counts the matching subscribers', async () => {
    const { api, accountId } = await account();
    await seed(accountId, 45);
    const res = await api.get('/subscribers');
    assert.equal(res.body.data.subscribers.length, 20);
    assert.deepEqual(res.body.data.pagination, { current_page: 1, total_pages: 3, total_count: 45, per_page: 20 });
    const last = await api.get('/subscribers?page=3');
    assert.equal(last.body.data.subscribers.length, 5);
    assert.deepEqual(last.body.data.pagination, { current_page: 3, total_pages: 3, total_count: 45, per_page: 20 });
    const beyond = await api.get('/subscribers?page=9');
    assert.deepEqual(beyond.body.data, {
      subscribers: [],
      pagination: { current_page: 9, total_pages: 3, total_count: 45, per_page: 20 },
    });
  });

  test('List subscribers › pages do not overlap and cover every subscriber once (newest first)', async () => {
    const { api, accountId } = await account();
    await seed(accountId, 23);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++)
      seen.push(
        ...(await api.get(`/subscribers?page=${page}&per_page=10`)).body.data.subscribers.map(
          (x: { email: string }) => x.email,
        ),
      );
    assert.equal(seen.length, 23);
    assert.equal(new Set(seen).size, 23);
    const newest = (await api.post('/subscribers', { email: 'newest@example.com' })).body.data;
    assert.equal((await api.get('/subscribers?per_page=1')).body.data.subscribers[0].id, newest.id);
  });

  test('List subscribers › per_page maximum 100 (clamped)', async () => {
    const { api, accountId } = await account();
    await seed(accountId, 105);
    for (const per of ['101', '500', '1000000']) {
      const res = await api.get(`/subscribers?per_page=${per}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.subscribers.length, 100);
      assert.deepEqual(res.body.data.pagination, { current_page: 1, total_pages: 2, total_count: 105, per_page: 100 });
    }
    assert.equal((await api.get('/subscribers?per_page=100&page=2')).body.data.subscribers.length, 5);
  });

  test('List subscribers › 400 field map when page or per_page is not a positive integer', async () => {
    const { api } = await account();
    const cases: [string, string][] = [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=', 'page'],
      ['page=1&page=2', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=-5', 'per_page'],
      ['per_page=2.5', 'per_page'],
      ['per_page=ten', 'per_page'],
      ['per_page=NaN', 'per_page'],
      ['per_page=Infinity', 'per_page'],
      ['page=99999999999999999999', 'page'],
    ];
    for (const [query, field] of cases) {
      const res = await api.get(`/subscribers?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.success, false);
      assert.equal(typeof res.body.error, 'string');
      assert.deepEqual(Object.keys(res.body.data), [field], query);
      assert.ok(res.body.data[field].every((m: unknown) => typeof m === 'string'));
    }
  });

  test('List subscribers › status: only subscribers in that status; anything else → 400', async () => {
    const { api, accountId } = await account();
    const statuses = ['active', 'unsubscribed', 'bounced', 'complained'] as const;
    await seed(accountId, 8, (i) => ({ status: statuses[i % 4] }));
    for (const status of statuses) {
      const res = await api.get(`/subscribers?status=${status}`);
      assert.equal(res.body.data.pagination.total_count, 2, status);
      assert.ok(res.body.data.subscribers.every((x: { status: string }) => x.status === status));
    }
    const bad = await api.get('/subscribers?status=deleted');
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.data), ['status']);
  });

  test('List subscribers › search: case-insensitive match on email, first name or last name', async () => {
    const { api } = await account();
    await api.post('/subscribers', { email: 'ada@lovelace.org', first_name: 'Augusta', last_name: 'King' });
    await api.post('/subscribers', { email: 'grace@navy.mil', first_name: 'Grace', last_name: 'Hopper' });
    await api.post('/subscribers', { email: 'alan@bletchley.uk', first_name: 'Alan', last_name: 'Turing' });
    const emails = async (q: string) =>
      (await api.get(`/subscribers?search=${encodeURIComponent(q)}`)).body.data.subscribers
        .map((x: { email: string }) => x.email)
        .sort();
    assert.deepEqual(await emails('LOVELACE'), ['ada@lovelace.org'], 'email');
    assert.deepEqual(await emails('grAce'), ['grace@navy.mil'], 'first name');
    assert.deepEqual(await emails('turing'), ['alan@bletchley.uk'], 'last name');
    assert.deepEqual(await emails('a'), ['ada@lovelace.org', 'alan@bletchley.uk', 'grace@navy.mil']);
    assert.deepEqual(await emails('zzz'), []);
    assert.deepEqual(await emails('%'), [], '% is a literal, not a wildcard');
    assert.deepEqual(await emails('_'), [], '_ is a literal, not a wildcard');
    const total = (await api.get('/subscribers?search=hopper')).body.data.pagination;
    assert.deepEqual(total, { current_page: 1, total_pages: 1, total_count: 1, per_page: 20 });
  });

  test("List subscribers › group_id: only subscribers in this group (another account's group → empty)", async () => {
    const { api, accountId } = await account();
    const other = await account();
    const g = await createGroup(s.db, accountId, 'Members');
    const theirGroup = await createGroup(s.db, other.accountId, 'Theirs');
    await api.post('/subscribers', { email: 'in@example.com', group_ids: [g] });
    await api.post('/subscribers', { email: 'out@example.com' });
    await other.api.post('/subscribers', { email: 'them@example.com', group_ids: [theirGroup] });
    const inGroup = await api.get(`/subscribers?group_id=${g}`);
    assert.deepEqual(
      inGroup.body.data.subscribers.map((x: { email: string }) => x.email),
      ['in@example.com'],
    );
    assert.equal(inGroup.body.data.pagination.total_count, 1);
    const foreign = await api.get(`/subscribers?group_id=${theirGroup}`);
    assert.equal(foreign.status, 200);
    assert.deepEqual(foreign.body.data.subscribers, []);
    assert.equal(foreign.body.data.pagination.total_count, 0);
    assert.deepEqual((await api.get(`/subscribers?group_id=${randomUUID()}`)).body.data.subscribers, []);
    const bad = await api.get('/subscribers?group_id=not-a-uuid');
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.data), ['group_id']);
  });

  test('List subscribers › filters combine (status + search + group_id)', async () => {
    const { api, accountId } = await account();
    const g = await createGroup(s.db, accountId, 'G');
    const a = (await api.post('/subscribers', { email: 'match@example.com', group_ids: [g] })).body.data;
    await api.post('/subscribers', { email: 'match2@example.com', group_ids: [g] });
    await api.put(`/subscribers/${a.id}`, { status: 'unsubscribed' });
    const res = await api.get(`/subscribers?status=unsubscribed&search=MATCH&group_id=${g}`);
    assert.deepEqual(
      res.body.data.subscribers.map((x: { id: string }) => x.id),
      [a.id],
    );
  });

  test("List subscribers › only the key's own account", async () => {
    const { api } = await account();
    const other = await account();
    await other.api.post('/subscribers', { email: 'theirs@example.com' });
    const res = await api.get('/subscribers?search=theirs');
    assert.deepEqual(res.body.data.subscribers, []);
    assert.equal((await api.get('/subscribers')).body.data.pagination.total_count, 0);
  });

  test('List subscribers › 401 success false, error text', async () => {
    const res = await restClient(s.url).get('/subscribers');
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
    assert.equal(typeof res.body.error, 'string');
  });
});

describe('Subscriber statistics', () => {
  test('Subscriber statistics › 200 data = total, active, unsubscribed, bounced, limit, usage_percentage', async () => {
    const { api, accountId } = await account({ limit: 300 });
    const statuses = [
      'active',
      'active',
      'active',
      'active',
      'unsubscribed',
      'unsubscribed',
      'bounced',
      'complained',
    ] as const;
    await seed(accountId, 8, (i) => ({ status: statuses[i] }));
    const res = await api.get('/subscribers/stats');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.deepEqual(res.body.data, {
      total: 8,
      active: 4,
      unsubscribed: 2,
      bounced: 1,
      limit: 300,
      usage_percentage: 3,
    });
  });

  test('Subscriber statistics › limit and usage_percentage are integers', async () => {
    const { api, accountId } = await account({ limit: 3 });
    await seed(accountId, 1);
    const d = (await api.get('/subscribers/stats')).body.data;
    assert.deepEqual([d.limit, d.usage_percentage], [3, 33]);
    for (const k of Object.keys(d)) assert.ok(Number.isInteger(d[k]), k);
    const empty = await account({ limit: 0 });
    assert.deepEqual((await empty.api.get('/subscribers/stats')).body.data, {
      total: 0,
      active: 0,
      unsubscribed: 0,
      bounced: 0,
      limit: 0,
      usage_percentage: 0,
    });
  });

  test("Subscriber statistics › counts only the key's own account and follows changes", async () => {
    const { api } = await account();
    const other = await account();
    await other.api.post('/subscribers', { email: 'theirs@example.com' });
    const id = (await api.post('/subscribers', { email: 'mine@example.com' })).body.data.id;
    assert.equal((await api.get('/subscribers/stats')).body.data.total, 1);
    await api.put(`/subscribers/${id}`, { status: 'unsubscribed' });
    const d = (await api.get('/subscribers/stats')).body.data;
    assert.deepEqual([d.total, d.active, d.unsubscribed], [1, 0, 1]);
    await api.delete(`/subscribers/${id}`);
    assert.equal((await api.get('/subscribers/stats')).body.data.total, 0);
  });

  test('Subscriber statistics › 401 without a key', async () => {
    const res = await restClient(s.url).get('/subscribers/stats');
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
  });
});
