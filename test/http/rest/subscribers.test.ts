// Spec "Create subscriber", "Get subscriber", "Update subscriber", "Delete subscriber": one test per
// table row, exact field sets ("Which fields each response carries"), rows checked after each change.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { keysOf, restClient, startServer } from '../../support/server.ts';
import { addNote, countRows, createGroup, eventsOf, eventTypes, groupIdsOf } from '../../support/rows.ts';

const s = await startServer({ after });

const CREATE_FIELDS = ['created_at', 'email', 'first_name', 'id', 'last_name', 'phone', 'status'];
const GET_FIELDS = [
  'created_at',
  'custom_fields',
  'email',
  'first_name',
  'groups',
  'id',
  'last_name',
  'notes',
  'phone',
  'status',
  'updated_at',
];
const UPDATE_FIELDS = ['custom_fields', 'email', 'first_name', 'id', 'last_name', 'phone', 'status', 'updated_at'];

/** A fresh account with the custom fields company (text) and age (number) defined. */
async function account(opts: { scopes?: string[]; limit?: number } = {}) {
  const a = await s.newAccount(opts);
  const api = restClient(s.url, a.key);
  for (const f of [
    { key: 'company', type: 'text' },
    { key: 'age', type: 'number' },
  ])
    assert.equal((await api.post('/fields', f)).status, 201);
  return { ...a, api };
}

describe('Create subscriber', () => {
  test('Create subscriber › 201 Created: success true, data = created subscriber with exactly the create fields', async () => {
    const { api, accountId } = await account();
    const res = await api.post('/subscribers', {
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+441234567',
      custom_fields: { company: 'Analytical' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.equal(res.body.success, true);
    assert.deepEqual(keysOf(res.body.data), CREATE_FIELDS);
    assert.match(res.body.data.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...res.body.data, id: 0, created_at: 0 },
      {
        id: 0,
        created_at: 0,
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone: '+441234567',
        status: 'active',
      },
    );
    assert.ok(!Number.isNaN(Date.parse(res.body.data.created_at)));
    const row = await s.db
      .selectFrom('subscribers')
      .selectAll()
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.account_id, accountId);
    assert.deepEqual(row.custom_fields, { company: 'Analytical' });
    assert.deepEqual(await eventTypes(s.db, accountId), ['subscriber.created']);
  });

  test('Create subscriber › a new subscriber starts as active and is added to the listed groups (group_ids)', async () => {
    const { api, accountId } = await account();
    const [g1, g2] = [await createGroup(s.db, accountId, 'One'), await createGroup(s.db, accountId, 'Two')];
    const res = await api.post('/subscribers', { email: 'grace@example.com', group_ids: [g1, g2] });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.status, 'active');
    assert.deepEqual(await groupIdsOf(s.db, res.body.data.id), [g1, g2].sort());
    assert.deepEqual(await eventTypes(s.db, accountId), [
      'subscriber.created',
      'subscriber.added_to_group',
      'subscriber.added_to_group',
    ]);
  });

  test('Create subscriber › 400 Validation failure: error text and data = map of field name to array of messages', async () => {
    const { api, accountId } = await account();
    for (const body of [
      {},
      { email: 'not-an-email' },
      { email: 42 },
      { email: 'a@example.com', first_name: 7 },
      { email: 'a@example.com', group_ids: ['nope'] },
      { email: 'a@example.com', custom_fields: [] },
    ]) {
      const res = await api.post('/subscribers', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(keysOf(res.body), ['data', 'error', 'success']);
      assert.equal(res.body.success, false);
      assert.equal(typeof res.body.error, 'string');
      for (const [field, messages] of Object.entries(res.body.data)) {
        assert.equal(typeof field, 'string');
        assert.ok(
          Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'),
          JSON.stringify(res.body),
        );
      }
    }
    const missing = await api.post('/subscribers', { first_name: 'No email' });
    assert.deepEqual(Object.keys(missing.body.data), ['email']);
    assert.deepEqual(await eventTypes(s.db, accountId), []);
  });

  test('Create subscriber › 400 custom_fields keys must match custom fields defined in the account', async () => {
    const { api } = await account();
    const unknown = await api.post('/subscribers', { email: 'a@example.com', custom_fields: { shoe_size: 44 } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.data, { 'custom_fields.shoe_size': ['Unknown custom field: shoe_size'] });
    const wrongType = await api.post('/subscribers', { email: 'a@example.com', custom_fields: { age: 'old' } });
    assert.equal(wrongType.status, 400);
    assert.deepEqual(Object.keys(wrongType.body.data), ['custom_fields.age']);
  });

  test('Create subscriber › 400 a group of another account in group_ids reads as not found', async () => {
    const { api } = await account();
    const other = await s.newAccount();
    const foreign = await createGroup(s.db, other.accountId, 'Theirs');
    const res = await api.post('/subscribers', { email: 'a@example.com', group_ids: [foreign] });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.data, { group_ids: [`Group not found: ${foreign}`] });
    const missing = randomUUID();
    assert.deepEqual((await api.post('/subscribers', { email: 'a@example.com', group_ids: [missing] })).body.data, {
      group_ids: [`Group not found: ${missing}`],
    });
  });

  test('Create subscriber › 403 Plan subscriber limit reached: data = {current_count, limit}', async () => {
    const { api, accountId } = await account({ limit: 2 });
    assert.equal((await api.post('/subscribers', { email: 'one@example.com' })).status, 201);
    assert.equal((await api.post('/subscribers', { email: 'two@example.com' })).status, 201);
    const res = await api.post('/subscribers', { email: 'three@example.com' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      success: false,
      error: 'Subscriber limit reached',
      data: { current_count: 2, limit: 2 },
    });
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      2,
    );
  });

  test('Create subscriber › 403 Plan subscriber limit holds under concurrent creates', async () => {
    const { api, accountId } = await account({ limit: 3 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.post('/subscribers', { email: `c${i}@example.com` })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403, 403, 403]);
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      3,
    );
  });

  test('Create subscriber › 409 Email already exists (compared case-insensitively)', async () => {
    const { api, accountId } = await account();
    assert.equal((await api.post('/subscribers', { email: 'Ada@Example.com' })).status, 201);
    const dup = await api.post('/subscribers', { email: ' ada@example.COM ' });
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.body, { success: false, error: 'Email already exists' });
    assert.deepEqual(await eventTypes(s.db, accountId), ['subscriber.created']);
  });

  test('Create subscriber › the same email may exist in two accounts (unique within the account)', async () => {
    const a = await account();
    const b = await account();
    assert.equal((await a.api.post('/subscribers', { email: 'shared@example.com' })).status, 201);
    assert.equal((await b.api.post('/subscribers', { email: 'shared@example.com' })).status, 201);
  });
});

describe('Get subscriber', () => {
  test('Get subscriber › 200 full subscriber with groups, custom_fields and notes, exactly the get fields', async () => {
    const { api, accountId } = await account();
    const g = await createGroup(s.db, accountId, 'Readers');
    const created = (
      await api.post('/subscribers', {
        email: 'ada@example.com',
        first_name: 'Ada',
        group_ids: [g],
        custom_fields: { company: 'AE', age: '36' },
      })
    ).body.data;
    const noteId = await addNote(s.db, accountId, created.id, 'Met at the conference');
    const res = await api.get(`/subscribers/${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.deepEqual(keysOf(res.body.data), GET_FIELDS);
    const d = res.body.data;
    assert.deepEqual(
      [d.id, d.email, d.first_name, d.last_name, d.phone, d.status],
      [created.id, 'ada@example.com', 'Ada', null, null, 'active'],
    );
    assert.deepEqual(d.groups, [{ id: g, name: 'Readers' }]);
    assert.deepEqual(d.custom_fields, { company: 'AE', age: 36 });
    assert.equal(d.notes.length, 1);
    assert.deepEqual(keysOf(d.notes[0]), ['content', 'created_at', 'id']);
    assert.deepEqual([d.notes[0].id, d.notes[0].content], [noteId, 'Met at the conference']);
    assert.equal(d.created_at, created.created_at);
  });

  test("Get subscriber › 404 success false, error text (missing id, non-UUID id, another account's id)", async () => {
    const { api } = await account();
    const other = await account();
    const theirs = (await other.api.post('/subscribers', { email: 'theirs@example.com' })).body.data.id;
    for (const id of [randomUUID(), 'not-a-uuid', '123', theirs, theirs.toUpperCase()]) {
      const res = await api.get(`/subscribers/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { success: false, error: 'Subscriber not found' });
    }
    assert.equal(
      (await other.api.get(`/subscribers/${theirs.toUpperCase()}`)).status,
      200,
      'UUIDs compare case-insensitively',
    );
  });

  test('Get subscriber › 401 success false, error text', async () => {
    const { api } = await account();
    const id = (await api.post('/subscribers', { email: 'a@example.com' })).body.data.id;
    const res = await restClient(s.url).get(`/subscribers/${id}`);
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
    assert.equal(typeof res.body.error, 'string');
  });
});

describe('Update subscriber', () => {
  async function seeded() {
    const a = await account();
    const [g1, g2, g3] = [
      await createGroup(s.db, a.accountId, 'G1'),
      await createGroup(s.db, a.accountId, 'G2'),
      await createGroup(s.db, a.accountId, 'G3'),
    ];
    const sub = (
      await a.api.post('/subscribers', {
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone: '+44123',
        group_ids: [g1, g2],
        custom_fields: { company: 'AE', age: 36 },
      })
    ).body.data;
    return { ...a, sub, g1, g2, g3 };
  }

  test('Update subscriber › 200 success true, data = updated subscriber with exactly the update fields', async () => {
    const { api, sub } = await seeded();
    const res = await api.put(`/subscribers/${sub.id}`, { first_name: 'Augusta' });
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.deepEqual(keysOf(res.body.data), UPDATE_FIELDS);
    assert.deepEqual(
      { ...res.body.data, updated_at: 0 },
      {
        id: sub.id,
        email: 'ada@example.com',
        first_name: 'Augusta',
        last_name: 'Lovelace',
        phone: '+44123',
        status: 'active',
        custom_fields: { company: 'AE', age: 36 },
        updated_at: 0,
      },
    );
    assert.ok(Date.parse(res.body.data.updated_at) >= Date.parse(sub.created_at));
  });

  test('Update subscriber › only the fields sent are changed; all others stay as they are', async () => {
    const { api, sub, g1, g2 } = await seeded();
    assert.equal((await api.put(`/subscribers/${sub.id}`, { phone: '+1555' })).status, 200);
    const got = (await api.get(`/subscribers/${sub.id}`)).body.data;
    assert.deepEqual(
      [got.first_name, got.last_name, got.phone, got.status, got.email],
      ['Ada', 'Lovelace', '+1555', 'active', 'ada@example.com'],
    );
    assert.deepEqual(got.custom_fields, { company: 'AE', age: 36 });
    assert.deepEqual(got.groups.map((g: { id: string }) => g.id).sort(), [g1, g2].sort());
    const cleared = (await api.put(`/subscribers/${sub.id}`, { last_name: null })).body.data;
    assert.equal(cleared.last_name, null);
    assert.equal(cleared.first_name, 'Ada');
  });

  test('Update subscriber › group_ids replaces all current group memberships with exactly this list', async () => {
    const { api, accountId, sub, g1, g2, g3 } = await seeded();
    const before = (await eventsOf(s.db, accountId)).length;
    assert.equal((await api.put(`/subscribers/${sub.id}`, { group_ids: [g2, g3] })).status, 200);
    assert.deepEqual(await groupIdsOf(s.db, sub.id), [g2, g3].sort());
    const events = (await eventsOf(s.db, accountId)).slice(before);
    assert.deepEqual(events.map((e) => e.type).sort(), [
      'subscriber.added_to_group',
      'subscriber.removed_from_group',
      'subscriber.updated',
    ]);
    assert.deepEqual((events.find((e) => e.type === 'subscriber.removed_from_group')!.data as any).group, {
      id: g1,
      name: 'G1',
    });
    assert.equal((await api.put(`/subscribers/${sub.id}`, { group_ids: [] })).status, 200);
    assert.deepEqual(await groupIdsOf(s.db, sub.id), []);
  });

  test('Update subscriber › custom_fields are merged into the existing custom fields', async () => {
    const { api, sub } = await seeded();
    const res = await api.put(`/subscribers/${sub.id}`, { custom_fields: { age: '37' } });
    assert.deepEqual(res.body.data.custom_fields, { company: 'AE', age: 37 });
    const cleared = await api.put(`/subscribers/${sub.id}`, { custom_fields: { company: null } });
    assert.deepEqual(cleared.body.data.custom_fields, { age: 37 });
  });

  test('Update subscriber › status unsubscribed: opted out, record and data kept; status active moves back', async () => {
    const { api, accountId, sub } = await seeded();
    const before = (await eventsOf(s.db, accountId)).length;
    const res = await api.put(`/subscribers/${sub.id}`, { status: 'unsubscribed' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, 'unsubscribed');
    assert.deepEqual((await eventTypes(s.db, accountId)).slice(before), [
      'subscriber.updated',
      'subscriber.unsubscribed',
    ]);
    const got = (await api.get(`/subscribers/${sub.id}`)).body.data;
    assert.deepEqual([got.first_name, got.custom_fields.company, got.groups.length], ['Ada', 'AE', 2]);
    assert.equal((await api.put(`/subscribers/${sub.id}`, { status: 'active' })).body.data.status, 'active');
    await s.db.updateTable('subscribers').set({ status: 'bounced' }).where('id', '=', sub.id).execute();
    assert.equal(
      (await api.put(`/subscribers/${sub.id}`, { status: 'active' })).body.data.status,
      'active',
      'any → active',
    );
  });

  test('Update subscriber › 400 any status other than active or unsubscribed (bounced, complained, unknown)', async () => {
    const { api, accountId, sub } = await seeded();
    const before = (await eventsOf(s.db, accountId)).length;
    for (const status of ['bounced', 'complained', 'deleted', '', 1, null]) {
      const res = await api.put(`/subscribers/${sub.id}`, { status });
      assert.equal(res.status, 400, String(status));
      assert.equal(res.body.success, false);
      assert.deepEqual(Object.keys(res.body.data), ['status']);
    }
    assert.equal((await api.get(`/subscribers/${sub.id}`)).body.data.status, 'active');
    assert.equal((await eventsOf(s.db, accountId)).length, before, 'a refused update writes nothing');
  });

  test('Update subscriber › 400 field map for bad values (custom field, group of another account, types)', async () => {
    const { api, sub, g1 } = await seeded();
    const other = await s.newAccount();
    const foreign = await createGroup(s.db, other.accountId, 'Theirs');
    const cases: [unknown, string][] = [
      [{ custom_fields: { nope: 1 } }, 'custom_fields.nope'],
      [{ group_ids: [g1, foreign] }, 'group_ids'],
      [{ first_name: ['x'] }, 'first_name'],
      [{ group_ids: 'x' }, 'group_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await api.put(`/subscribers/${sub.id}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(field in res.body.data, JSON.stringify(res.body));
    }
    assert.deepEqual((await groupIdsOf(s.db, sub.id)).length, 2, 'a refused update leaves memberships alone');
  });

  test("Update subscriber › 404 success false, error text (missing, non-UUID, another account's id)", async () => {
    const { api } = await seeded();
    const other = await seeded();
    for (const id of [randomUUID(), 'nope', other.sub.id]) {
      const res = await api.put(`/subscribers/${id}`, { first_name: 'X' });
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { success: false, error: 'Subscriber not found' });
    }
    assert.equal((await other.api.get(`/subscribers/${other.sub.id}`)).body.data.first_name, 'Ada');
  });
});

describe('Delete subscriber', () => {
  test('Delete subscriber › 200 success true, message; removal is permanent (events, memberships, field values gone)', async () => {
    const { api, accountId } = await account();
    const g = await createGroup(s.db, accountId, 'G');
    const sub = (
      await api.post('/subscribers', { email: 'ada@example.com', group_ids: [g], custom_fields: { company: 'AE' } })
    ).body.data;
    await addNote(s.db, accountId, sub.id, 'note');
    await api.put(`/subscribers/${sub.id}`, { status: 'unsubscribed' });
    assert.ok((await countRows(s.db, 'events', sub.id)) >= 3);
    const res = await api.delete(`/subscribers/${sub.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['message', 'success']);
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.message, 'string');
    for (const table of ['subscribers', 'events', 'subscriber_groups', 'subscriber_notes'] as const)
      assert.equal(await countRows(s.db, table, sub.id), 0, table);
    const deleted = (await eventsOf(s.db, accountId)).filter((e) => e.type === 'subscriber.deleted');
    assert.deepEqual(
      deleted.map((e) => [e.subscriber_id, e.data]),
      [[null, { subscriber: { id: sub.id, email: 'ada@example.com' } }]],
    );
    assert.equal((await api.get(`/subscribers/${sub.id}`)).status, 404);
    assert.equal(
      (await api.post('/subscribers', { email: 'ada@example.com' })).status,
      201,
      'the address can be added again',
    );
  });

  test("Delete subscriber › 404 success false, error text (missing, non-UUID, another account's id)", async () => {
    const { api } = await account();
    const other = await account();
    const theirs = (await other.api.post('/subscribers', { email: 'theirs@example.com' })).body.data.id;
    for (const id of [randomUUID(), 'x', theirs]) {
      const res = await api.delete(`/subscribers/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Subscriber not found' });
    }
    assert.equal(await countRows(s.db, 'subscribers', theirs), 1);
    assert.equal((await other.api.delete(`/subscribers/${theirs}`)).status, 200);
    assert.equal((await other.api.delete(`/subscribers/${theirs}`)).status, 404, 'a second delete finds nothing');
  });

  test('Delete subscriber › 401 success false, error text', async () => {
    const { api } = await account();
    const id = (await api.post('/subscribers', { email: 'a@example.com' })).body.data.id;
    const res = await restClient(s.url, 'mailgrove_00000000000000000000000000000000').delete(`/subscribers/${id}`);
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
    assert.equal(typeof res.body.error, 'string');
    assert.equal(await countRows(s.db, 'subscribers', id), 1);
  });
});
