// GET/POST/DELETE /api/v1/external/fields: custom-field definitions per
// account, so a subscriber's custom_fields can be used at all. Scopes are covered in auth.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { keysOf, startServer } from '../../support/server.ts';

const s = await startServer({ after });

const FIELD_KEYS = ['created_at', 'id', 'key', 'name', 'type'];

const account = () => s.restAccount();

describe('Custom fields', () => {
  test('Custom fields › POST 201 with {id, key, name, type, created_at}; name defaults to the key, type to text', async () => {
    const { api } = await account();
    const res = await api.post('/fields', { key: 'company' });
    assert.equal(res.status, 201);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    assert.deepEqual(keysOf(res.body.data), FIELD_KEYS);
    assert.deepEqual([res.body.data.key, res.body.data.name, res.body.data.type], ['company', 'company', 'text']);
    const typed = await api.post('/fields', { key: 'Birthday', name: 'Birthday', type: 'date' });
    assert.deepEqual(
      [typed.body.data.key, typed.body.data.name, typed.body.data.type],
      ['birthday', 'Birthday', 'date'],
      'keys are lower-cased',
    );
  });

  test("Custom fields › GET lists the account's fields (ordered by key), not another account's", async () => {
    const { api } = await account();
    const other = await account();
    await api.post('/fields', { key: 'zeta', type: 'number' });
    await api.post('/fields', { key: 'alpha', type: 'boolean' });
    await other.api.post('/fields', { key: 'theirs' });
    const res = await api.get('/fields');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.fields.map((f: { key: string; type: string }) => [f.key, f.type]),
      [
        ['alpha', 'boolean'],
        ['zeta', 'number'],
      ],
    );
    for (const f of res.body.data.fields) assert.deepEqual(keysOf(f), FIELD_KEYS);
    assert.deepEqual(res.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 });
    // read whole, paged like any other list
    const second = (await api.get('/fields?page=2&per_page=1')).body.data;
    assert.deepEqual(
      [second.fields.map((f: { key: string }) => f.key), second.pagination],
      [['zeta'], { current_page: 2, total_pages: 2, total_count: 2, per_page: 1 }],
    );
    assert.equal((await api.get('/fields?page=0')).status, 400);
  });

  test('Custom fields › 409 when the key already exists in the account; another account may use it', async () => {
    const { api } = await account();
    const other = await account();
    assert.equal((await api.post('/fields', { key: 'company' })).status, 201);
    const dup = await api.post('/fields', { key: 'COMPANY', type: 'number' });
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.body, { success: false, error: 'Field already exists' });
    assert.equal((await other.api.post('/fields', { key: 'company' })).status, 201);
  });

  test('Custom fields › 400 field map for a bad key, a reserved key or an unknown type', async () => {
    const { api } = await account();
    const cases: [unknown, string][] = [
      [{}, 'key'],
      [{ key: '' }, 'key'],
      [{ key: '1abc' }, 'key'],
      [{ key: 'has space' }, 'key'],
      [{ key: 'a'.repeat(64) }, 'key'],
      [{ key: 'email' }, 'key'],
      [{ key: 'status' }, 'key'],
      [{ key: 'ok', type: 'json' }, 'type'],
      [{ key: 'ok', name: '' }, 'name'],
      [{ key: 'ok', name: 5 }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/fields', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body.data), [field], JSON.stringify(body));
    }
    assert.deepEqual((await api.get('/fields')).body.data.fields, []);
  });

  test('Custom fields › values are coerced to the field type: number, boolean, date, text', async () => {
    const { api } = await account();
    for (const [key, type] of [
      ['age', 'number'],
      ['vip', 'boolean'],
      ['born', 'date'],
      ['city', 'text'],
    ])
      await api.post('/fields', { key, type });
    const res = await api.post('/subscribers', {
      email: 'c@example.com',
      custom_fields: { age: '42', vip: 'yes', born: '1815-12-10', city: 7 },
    });
    assert.equal(res.status, 201);
    const got = (await api.get(`/subscribers/${res.body.data.id}`)).body.data.custom_fields;
    assert.deepEqual(got, { age: 42, vip: true, born: '1815-12-10', city: '7' });
    const bad = await api.put(`/subscribers/${res.body.data.id}`, {
      custom_fields: { age: 'x', vip: 'maybe', born: '1815-02-30', city: { a: 1 } },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(keysOf(bad.body.data), [
      'custom_fields.age',
      'custom_fields.born',
      'custom_fields.city',
      'custom_fields.vip',
    ]);
  });

  test("Custom fields › DELETE 200 removes the definition and every subscriber's value for it", async () => {
    const { api, accountId } = await account();
    const company = (await api.post('/fields', { key: 'company' })).body.data;
    await api.post('/fields', { key: 'city' });
    const sub = (
      await api.post('/subscribers', { email: 'd@example.com', custom_fields: { company: 'AE', city: 'London' } })
    ).body.data;
    const res = await api.delete(`/fields/${company.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Field deleted', data: { id: company.id, deleted: true } });
    assert.deepEqual((await api.get(`/subscribers/${sub.id}`)).body.data.custom_fields, { city: 'London' });
    const row = await s.db
      .selectFrom('fields')
      .select('id')
      .where('account_id', '=', accountId)
      .where('key', '=', 'company')
      .executeTakeFirst();
    assert.equal(row, undefined);
    assert.equal(
      (await api.post('/subscribers', { email: 'e@example.com', custom_fields: { company: 'X' } })).status,
      400,
      'the key is unknown now',
    );
  });

  test("Custom fields › DELETE 404 for a missing field, a non-UUID id or another account's field", async () => {
    const { api } = await account();
    const other = await account();
    const theirs = (await other.api.post('/fields', { key: 'company' })).body.data.id;
    for (const id of [randomUUID(), 'nope', theirs]) {
      const res = await api.delete(`/fields/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Field not found' });
    }
    assert.equal((await other.api.get('/fields')).body.data.fields.length, 1);
  });
});
