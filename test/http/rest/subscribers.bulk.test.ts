// REST POST /subscribers/bulk (our addition): one operation over ids or the list's filter, the same
// events as the single-subscriber operations, scopes, bad input → 400, other accounts untouched.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after });

/** n subscribers in one statement: match0000@example.com …, or other… when `prefix` says so. */
async function seed(accountId: string, n: number, prefix = 'match') {
  const rows = Array.from({ length: n }, (_, i) => ({
    account_id: accountId,
    email: `${prefix}${String(i).padStart(4, '0')}@example.com`,
    custom_fields: '{}',
  }));
  const out = await s.db.insertInto('subscribers').values(rows).returning(['id', 'email']).execute();
  return out;
}

const eventsOf = (accountId: string, type: string) =>
  s.db
    .selectFrom('events')
    .select(['subscriber_id', 'data'])
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .execute();

describe('POST /subscribers/bulk', () => {
  test('add_to_group with a filter: all 2,000 subscribers matching a search join, one event each, in one operation', async () => {
    const { api, accountId } = await s.restAccount();
    await seed(accountId, 2000);
    await seed(accountId, 50, 'other');
    const group = (await api.post('/groups', { name: 'Matched' })).body.data;
    const started = performance.now();
    const r = await api.post('/subscribers/bulk', {
      action: 'add_to_group',
      group_id: group.id,
      filter: { search: 'match' },
    });
    const took = performance.now() - started;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { success: true, data: { affected: 2000 } });
    // 2.2 s on PGlite at a load of 9; the bound catches a per-row loop (minutes), not a busy machine
    assert.ok(took < 10_000, `took ${Math.round(took)} ms`);
    assert.equal((await api.get(`/groups/${group.id}`)).body.data.subscriber_count, 2000);
    const events = await eventsOf(accountId, 'subscriber.added_to_group');
    assert.equal(events.length, 2000);
    assert.deepEqual((events[0]!.data as any).group, { id: group.id, name: 'Matched' });
    // members already in the group are not added twice
    const again = await api.post('/subscribers/bulk', { action: 'add_to_group', group_id: group.id, filter: {} });
    assert.deepEqual(again.body.data, { affected: 50 });
  });

  test("remove_from_group, unsubscribe and delete by ids write the single operations' events", async () => {
    const { api, accountId } = await s.restAccount();
    const subs = await seed(accountId, 3);
    const group = (await api.post('/groups', { name: 'G' })).body.data;
    const ids = subs.map((x) => x.id);
    assert.deepEqual(
      (await api.post('/subscribers/bulk', { action: 'add_to_group', group_id: group.id, ids })).body.data,
      {
        affected: 3,
      },
    );
    const removed = await api.post('/subscribers/bulk', {
      action: 'remove_from_group',
      group_id: group.id,
      ids: ids.slice(0, 2),
    });
    assert.deepEqual(removed.body.data, { affected: 2 });
    assert.equal((await eventsOf(accountId, 'subscriber.removed_from_group')).length, 2);

    const unsub = await api.post('/subscribers/bulk', { action: 'unsubscribe', ids: [ids[0]] });
    assert.deepEqual(unsub.body.data, { affected: 1 });
    assert.equal((await api.get(`/subscribers/${ids[0]}`)).body.data.status, 'unsubscribed');
    const [ev] = await eventsOf(accountId, 'subscriber.unsubscribed');
    assert.equal(ev!.subscriber_id, ids[0]);
    assert.equal((ev!.data as any).subscriber.status, 'unsubscribed');
    assert.equal((ev!.data as any).source, 'api');
    assert.equal((await eventsOf(accountId, 'subscriber.updated')).length, 1);
    // already unsubscribed: nothing changes, no event
    assert.deepEqual((await api.post('/subscribers/bulk', { action: 'unsubscribe', ids: [ids[0]] })).body.data, {
      affected: 0,
    });

    const del = await api.post('/subscribers/bulk', { action: 'delete', filter: { status: 'active' } });
    assert.deepEqual(del.body.data, { affected: 2 });
    assert.equal((await api.get('/subscribers')).body.data.pagination.total_count, 1);
    const deleted = await eventsOf(accountId, 'subscriber.deleted');
    assert.deepEqual(deleted.map((e) => (e.data as any).subscriber.id).sort(), ids.slice(1).sort());
  });

  test("another account's ids and group are ignored or 404; its subscribers are untouched", async () => {
    const mine = await s.restAccount();
    const theirs = await s.restAccount();
    const [their] = await seed(theirs.accountId, 1);
    const [own] = await seed(mine.accountId, 1);
    const theirGroup = (await theirs.api.post('/groups', { name: 'T' })).body.data;
    const r = await mine.api.post('/subscribers/bulk', { action: 'delete', ids: [their!.id, own!.id] });
    assert.deepEqual(r.body.data, { affected: 1 });
    assert.equal((await theirs.api.get(`/subscribers/${their!.id}`)).status, 200);
    const g = await mine.api.post('/subscribers/bulk', { action: 'add_to_group', group_id: theirGroup.id, filter: {} });
    assert.equal(g.status, 404);
    assert.deepEqual(g.body, { success: false, error: 'Group not found' });
  });

  test('bad input is a 400 naming the field; the scope is subscribers:write', async () => {
    const { api } = await s.restAccount();
    const cases: [unknown, string][] = [
      [{ action: 'explode', ids: [] }, 'action'],
      [{ action: 'delete' }, 'ids'],
      [{ action: 'delete', ids: [], filter: {} }, 'ids'],
      [{ action: 'add_to_group', ids: [] }, 'group_id'],
      [{ action: 'delete', ids: ['nope'] }, 'ids.0'],
      [{ action: 'delete', filter: { status: 'gone' } }, 'filter.status'],
      [{ action: 'delete', ids: Array.from({ length: 10_001 }, () => crypto.randomUUID()) }, 'ids'],
    ];
    for (const [body, field] of cases) {
      const r = await api.post('/subscribers/bulk', body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
      assert.ok(field in r.body.data, `${field} in ${JSON.stringify(r.body.data)}`);
    }
    const a = await s.newAccount({ scopes: ['subscribers:read'] });
    const readOnly = restClient(s.url, a.key);
    assert.equal((await readOnly.post('/subscribers/bulk', { action: 'delete', filter: {} })).status, 403);
  });
});
