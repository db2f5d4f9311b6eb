// admin API (/admin/v1, MAILGROVE_ADMIN_TOKEN): off (404) without the token, 401 without the
// right bearer, accounts with their owner, keys shown once and stored as a SHA-256 hash, immediate revoke.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import * as sessions from '../../../src/domain/accounts/sessions.ts';
import * as totp from '../../../src/domain/accounts/totp.ts';
import * as users from '../../../src/domain/accounts/users.ts';
import { ADMIN_TOKEN, client, keysOf, restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after });
const off = await startServer({ after }, { MAILGROVE_ADMIN_TOKEN: '' });
const admin = client(`${s.url}/admin/v1`, ADMIN_TOKEN);

const KEY_INFO = ['created_at', 'expires_at', 'hint', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes'];

async function newAccount(body: Record<string, unknown> = {}) {
  const res = await admin.post('/accounts', {
    name: 'Acme',
    owner_email: `owner-${randomUUID()}@example.com`,
    ...body,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

describe('Admin API', () => {
  test('Admin API › 404 when MAILGROVE_ADMIN_TOKEN is not set (the API is off)', async () => {
    for (const [method, path] of [
      ['GET', '/accounts'],
      ['POST', '/accounts'],
      ['DELETE', `/api-keys/${randomUUID()}`],
    ] as const) {
      const res = await client(`${off.url}/admin/v1`, ADMIN_TOKEN).call(
        method,
        path,
        method === 'POST' ? { name: 'x' } : undefined,
      );
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Not found');
    }
    assert.equal((await off.db.selectFrom('accounts').select('id').execute()).length, 0);
  });

  test('Admin API › 401 without the token, with a wrong one, or not in Bearer form', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong' },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
    ]) {
      const res = await client(`${s.url}/admin/v1`).call('POST', '/accounts', { name: 'x' }, headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.deepEqual(res.body, { success: false, error: 'Unauthorized' });
    }
    const { key } = await s.newAccount();
    assert.equal(
      (await client(`${s.url}/admin/v1`, key).get('/accounts')).status,
      401,
      'an API key is not the admin token',
    );
  });

  test('Admin API › create account → 201 with its owner; subscriber_limit defaults to DEFAULT_SUBSCRIBER_LIMIT', async () => {
    const email = `ada-${randomUUID()}@example.com`;
    const res = await admin.post('/accounts', { name: 'Analytical Engines', owner_email: email });
    assert.equal(res.status, 201);
    assert.deepEqual(keysOf(res.body), ['data', 'success']);
    const a = res.body.data;
    assert.equal(a.name, 'Analytical Engines');
    assert.equal(a.subscriber_limit, s.config.DEFAULT_SUBSCRIBER_LIMIT);
    assert.deepEqual(keysOf(a.owner), ['email', 'id', 'idp_user_id']);
    assert.equal(a.owner.email, email);
    assert.match(a.owner.idp_user_id, /^local\|[0-9a-f-]{36}$/);
    const membership = await s.db.selectFrom('memberships').selectAll().where('account_id', '=', a.id).execute();
    assert.deepEqual(
      membership.map((m) => [m.user_id, m.role]),
      [[a.owner.id, 'owner']],
    );
    const limited = await newAccount({ subscriber_limit: 5 });
    assert.equal(limited.subscriber_limit, 5);
  });

  test('Admin API › create account → 400 field map for a bad body', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x', subscriber_limit: -1 }, 'subscriber_limit'],
      [{ name: 'x', subscriber_limit: 1.5 }, 'subscriber_limit'],
      [{ name: 'x', owner_email: 'nope' }, 'owner_email'],
      [[], 'body'],
    ] as const) {
      const res = await admin.post('/accounts', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.deepEqual(Object.keys(res.body.data), [field], JSON.stringify(res.body));
    }
    assert.equal(
      (await admin.post('/accounts', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' })).status,
      415,
    );
  });

  test('Admin API › list and get accounts; unknown or non-UUID id → 404', async () => {
    const a = await newAccount({ name: 'Listed' });
    const list = await admin.get('/accounts');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.accounts.some((x: { id: string }) => x.id === a.id));
    assert.deepEqual(Object.keys(list.body.data.pagination), [
      'current_page',
      'total_pages',
      'total_count',
      'per_page',
    ]);
    const got = await admin.get(`/accounts/${a.id}`);
    assert.deepEqual([got.status, got.body.data.name], [200, 'Listed']);
    for (const id of [randomUUID(), 'nope'])
      assert.deepEqual((await admin.get(`/accounts/${id}`)).body, { success: false, error: 'Account not found' });
  });

  test('Admin API › PATCH account subscriber_limit → the plan limit REST create enforces', async () => {
    const a = await newAccount();
    const key = (await admin.post(`/accounts/${a.id}/api-keys`, { name: 'k', scopes: ['*'] })).body.data.key;
    const api = restClient(s.url, key);
    const res = await admin.patch(`/accounts/${a.id}`, { subscriber_limit: 1 });
    assert.deepEqual([res.status, res.body.data.subscriber_limit], [200, 1]);
    assert.equal((await api.post('/subscribers', { email: 'one@example.com' })).status, 201);
    assert.deepEqual((await api.post('/subscribers', { email: 'two@example.com' })).body, {
      success: false,
      error: 'Subscriber limit reached',
      data: { current_count: 1, limit: 1 },
    });
    assert.equal((await api.get('/subscribers/stats')).body.data.limit, 1);
    const bad = await admin.patch(`/accounts/${a.id}`, { subscriber_limit: 'lots' });
    assert.deepEqual([bad.status, Object.keys(bad.body.data)], [400, ['subscriber_limit']]);
    assert.equal((await admin.patch(`/accounts/${a.id}`, { unknown_setting: 1 })).status, 400);
    assert.equal((await admin.patch(`/accounts/${randomUUID()}`, { subscriber_limit: 1 })).status, 404);
  });

  test('Admin API › create key → 201 with the raw key once: mailgrove_ + 32 hex (42 chars), only its hash stored', async () => {
    const a = await newAccount();
    const res = await admin.post(`/accounts/${a.id}/api-keys`, {
      name: 'Zapier',
      scopes: ['subscribers:read', 'groups:*'],
    });
    assert.equal(res.status, 201);
    assert.deepEqual(keysOf(res.body), ['data', 'message', 'success']);
    const k = res.body.data;
    assert.deepEqual(keysOf(k), [...KEY_INFO, 'key'].sort());
    assert.match(k.key, /^mailgrove_[0-9a-f]{32}$/);
    assert.equal(k.key.length, 42);
    assert.deepEqual(
      [k.name, k.scopes, k.expires_at, k.revoked_at],
      ['Zapier', ['subscribers:read', 'groups:*'], null, null],
    );
    assert.equal(k.hint, `mailgrove_…${k.key.slice(-4)}`);
    const row = await s.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(k.key).digest('hex'));
    assert.ok(
      !Object.values(row).some((v) => typeof v === 'string' && v.includes(k.key.slice('mailgrove_'.length))),
      'the raw key is in no column',
    );
    const list = await admin.get(`/accounts/${a.id}/api-keys`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.api_keys.map((x: object) => keysOf(x)),
      [KEY_INFO],
      'listed without key or hash',
    );
    assert.ok(!JSON.stringify(list.body).includes(k.key));
  });

  test('Admin API › a key created through the admin API belongs to the owner (test-auth reports the owner)', async () => {
    const a = await newAccount();
    const k = (await admin.post(`/accounts/${a.id}/api-keys`, { name: 'Owner key', scopes: ['subscribers:read'] })).body
      .data;
    const auth = await restClient(s.url, k.key).get('/test-auth');
    assert.equal(auth.status, 200);
    assert.deepEqual(
      [auth.body.data.user_id, auth.body.data.idp_user_id, auth.body.data.api_key_name],
      [a.owner.id, a.owner.idp_user_id, 'Owner key'],
    );
  });

  test('Admin API › an account made without owner_email has a service owner: its keys report a UUID user_id in test-auth', async () => {
    const res = await admin.post('/accounts', { name: 'Ownerless' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const a = res.body.data;
    assert.deepEqual(a.owner, {
      id: a.owner.id,
      idp_user_id: `service|${a.id}`,
      email: `owner+${a.id}@mailgrove.invalid`,
    });
    const membership = await s.db.selectFrom('memberships').selectAll().where('account_id', '=', a.id).execute();
    assert.deepEqual(
      membership.map((m) => [m.user_id, m.role]),
      [[a.owner.id, 'owner']],
    );
    const k = (await admin.post(`/accounts/${a.id}/api-keys`, { name: 'Service key', scopes: ['*'] })).body.data;
    const auth = await restClient(s.url, k.key).get('/test-auth');
    assert.equal(auth.status, 200);
    assert.match(auth.body.data.user_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual([auth.body.data.user_id, auth.body.data.idp_user_id], [a.owner.id, `service|${a.id}`]);
    // no one signs in as the service owner: an operator reset does not give it a password
    const reset = await admin.post('/users/password', { email: a.owner.email, password: 'long enough pass' });
    assert.deepEqual([reset.status, reset.body.error], [404, 'User not found']);
  });

  test('Admin API › create key → 400 for a missing name or bad scopes, 404 for an unknown account', async () => {
    const a = await newAccount();
    for (const [body, field] of [
      [{ scopes: ['*'] }, 'name'],
      [{ name: 'k' }, 'scopes'],
      [{ name: 'k', scopes: [] }, 'scopes'],
      [{ name: 'k', scopes: ['subscribers:admin'] }, 'scopes.0'],
      [{ name: 'k', scopes: ['*'], expires_at: 'soon' }, 'expires_at'],
    ] as const) {
      const res = await admin.post(`/accounts/${a.id}/api-keys`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body.data), [field], JSON.stringify(res.body));
    }
    assert.deepEqual((await admin.post(`/accounts/${randomUUID()}/api-keys`, { name: 'k', scopes: ['*'] })).body, {
      success: false,
      error: 'Account not found',
    });
    assert.equal((await s.db.selectFrom('api_keys').select('id').where('account_id', '=', a.id).execute()).length, 0);
  });

  test('Admin API › a key with expires_at in the past is refused as expired', async () => {
    const a = await newAccount();
    const k = (
      await admin.post(`/accounts/${a.id}/api-keys`, { name: 'old', scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' })
    ).body.data;
    const res = await restClient(s.url, k.key).get('/test-auth');
    assert.deepEqual([res.status, res.body.message], [401, 'API key has expired']);
  });

  test('Admin API › revoke → 200, and the key gets 401 on the next request', async () => {
    const a = await newAccount();
    const k = (await admin.post(`/accounts/${a.id}/api-keys`, { name: 'k', scopes: ['*'] })).body.data;
    const api = restClient(s.url, k.key);
    assert.equal((await api.get('/subscribers')).status, 200);
    const res = await admin.delete(`/api-keys/${k.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'API key deleted', data: { id: k.id, deleted: true } });
    const after = await api.get('/subscribers');
    assert.deepEqual([after.status, after.body.message], [401, 'API key has been revoked']);
    const row = await s.db.selectFrom('api_keys').select('revoked_at').where('id', '=', k.id).executeTakeFirstOrThrow();
    assert.ok(row.revoked_at);
    assert.ok((await admin.get(`/accounts/${a.id}/api-keys`)).body.data.api_keys[0].revoked_at);
    assert.equal((await admin.delete(`/api-keys/${k.id}`)).status, 200, 'revoking twice is harmless');
    for (const id of [randomUUID(), 'nope'])
      assert.deepEqual((await admin.delete(`/api-keys/${id}`)).body, { success: false, error: 'API key not found' });
  });

  test("Admin API › POST /users/password sets an owner's first password, so it can sign in to the dashboard", async () => {
    const a = await newAccount();
    const set = await admin.post('/users/password', {
      email: a.owner.email.toUpperCase(),
      password: 'correct horse battery',
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.data.id, a.owner.id);
    assert.ok(await users.authenticatePassword(s.db, a.owner.email, 'correct horse battery'));
    assert.equal((await admin.post('/users/password', { email: a.owner.email, password: 'short' })).status, 400);
    assert.equal(
      (
        await admin.post('/users/password', {
          email: `nobody-${randomUUID()}@example.com`,
          password: 'long enough pass',
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await client(`${s.url}/admin/v1`).post('/users/password', {
          email: a.owner.email,
          password: 'long enough pass',
        })
      ).status,
      401,
    );
  });

  test('Admin API › POST /users/two-factor/reset turns a lost second factor off: the password alone signs in, sessions end', async () => {
    const a = await newAccount();
    const owner = a.owner.id as string;
    await users.resetPassword(s.db, { email: a.owner.email, password: 'correct horse battery' });
    const enrolment = await totp.beginEnrolment(s.db, s.config.secret, owner);
    await totp.confirmEnrolment(s.db, s.config.secret, owner, {
      code: new TOTP({ secret: Secret.fromBase32(enrolment.secret) }).generate(),
    });
    await sessions.start(s.db, owner, a.id, 60_000);
    const count = async (table: 'sessions' | 'recovery_codes') =>
      (await s.db.selectFrom(table).select('user_id').where('user_id', '=', owner).execute()).length;
    assert.deepEqual(
      [await totp.isEnabled(s.db, owner), await count('sessions'), await count('recovery_codes')],
      [true, 1, 10],
    );

    const reset = await admin.post('/users/two-factor/reset', { email: a.owner.email.toUpperCase() });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.deepEqual([reset.body.data.id, reset.body.data.two_factor], [owner, false]);
    assert.deepEqual(
      [await totp.isEnabled(s.db, owner), await count('sessions'), await count('recovery_codes')],
      [false, 0, 0],
    );
    const row = await s.db.selectFrom('users').selectAll().where('id', '=', owner).executeTakeFirstOrThrow();
    assert.equal(row.totp_secret, null);
    assert.ok(await users.authenticatePassword(s.db, a.owner.email, 'correct horse battery'));

    for (const [body, status] of [
      [{ email: `nobody-${randomUUID()}@example.com` }, 404],
      [{ email: (await newAccount({ owner_email: undefined })).owner.email }, 404], // a service owner
      [{ email: 'not an address' }, 400],
      [{}, 400],
    ] as const) {
      const res = await admin.post('/users/two-factor/reset', body);
      assert.equal(res.status, status, JSON.stringify([body, res.body]));
    }
    const anonymous = client(`${s.url}/admin/v1`).post('/users/two-factor/reset', { email: a.owner.email });
    assert.equal((await anonymous).status, 401);
  });

  test('Admin API › unknown admin routes → 404 envelope', async () => {
    const res = await admin.get('/nope');
    assert.deepEqual([res.status, res.body.success, typeof res.body.error], [404, false, 'string']);
  });
});
