// "First visit with no users offers 'create the owner account'", and email + password sign-in.
// Its own server: "no users yet" is instance-wide, so nothing else may create users here first.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { dashboardClient } from '../session.ts';

const s = await startServer(fileScope);

describe('dashboard: create the owner account, then sign in', () => {
  const owner = { account_name: 'Acme', name: 'Ada Owner', email: 'ada@acme.test', password: 'a long enough password' };

  test('first visit with no users: /setup says needs_owner', async () => {
    const r = await dashboardClient(s.url).get('/setup');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, { needs_owner: true, sign_in: 'password' });
  });

  test('create the owner account › bad input is 400 with the field map, and nothing is created', async () => {
    const r = await dashboardClient(s.url).post('/setup/owner', { ...owner, email: 'not-an-email', password: 'short' });
    assert.equal(r.status, 400);
    assert.ok(r.body.data.email);
    assert.ok(r.body.data.password);
    assert.equal((await s.db.selectFrom('users').select('id').execute()).length, 0);
  });

  test('create the owner account › creates account + owner user (local|uuid, scrypt hash) + membership and signs in', async () => {
    const c = dashboardClient(s.url);
    const r = await c.post('/setup/owner', owner);
    assert.equal(r.status, 201);
    const cookie = r.headers.getSetCookie().find((h) => h.startsWith('mailgrove_session='))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.doesNotMatch(cookie, /Secure/i, 'plain http public URL: no Secure flag');
    const user = await s.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.match(user.idp_user_id, /^local\|[0-9a-f-]{36}$/);
    assert.match(user.password_hash!, /^scrypt\$/);
    assert.ok(!user.password_hash!.includes(owner.password));
    const membership = await s.db
      .selectFrom('memberships')
      .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
      .select(['role', 'accounts.name'])
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(membership, { role: 'owner', name: 'Acme' });
    const me = await c.get('/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user.email, owner.email);
    assert.equal(me.body.data.role, 'owner');
    assert.deepEqual(me.body.data.permissions, ['read', 'edit', 'manage']);
    // the session is stored hashed: the cookie value is not in the table
    const token = cookie.split(';')[0]!.split('=')[1]!;
    const session = await s.db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    assert.notEqual(session.token_hash, token);
    assert.match(session.token_hash, /^[0-9a-f]{64}$/);
  });

  test('create the owner account › a second "create owner" when users exist is refused (409) and creates nothing', async () => {
    const r = await dashboardClient(s.url).post('/setup/owner', {
      ...owner,
      email: 'mallory@evil.test',
      account_name: 'Takeover',
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.success, false);
    assert.equal(r.headers.getSetCookie().length, 0);
    assert.equal((await s.db.selectFrom('users').select('id').execute()).length, 1);
    assert.equal((await dashboardClient(s.url).get('/setup')).body.data.needs_owner, false);
  });

  test('sign in › wrong password and unknown email both get 401 with the same generic message', async () => {
    const c = dashboardClient(s.url);
    const wrong = await c.post('/session', { email: owner.email, password: 'wrong password!' });
    const unknown = await c.post('/session', { email: 'nobody@acme.test', password: 'wrong password!' });
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, { success: false, error: 'Invalid email or password' });
    assert.deepEqual(unknown.body, wrong.body);
    assert.equal(c.jar.size, 0);
    assert.equal((await c.get('/me')).status, 401);
  });

  test('sign in › the right password (email case-insensitive) signs in; sign out ends the session server-side', async () => {
    const c = dashboardClient(s.url);
    const r = await c.post('/session', { email: 'ADA@acme.test', password: owner.password });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.user.email, owner.email);
    const stolen = c.jar.get('mailgrove_session')!;
    assert.equal((await c.get('/me')).status, 200);
    const out = await c.delete('/session');
    assert.equal(out.status, 200);
    assert.match(out.headers.getSetCookie()[0]!, /mailgrove_session=;/);
    assert.equal((await c.get('/me')).status, 401);
    // a copy of the old cookie is worthless too: the row is gone
    const replay = await fetch(`${s.url}/app/api/me`, { headers: { cookie: `mailgrove_session=${stolen}` } });
    assert.equal(replay.status, 401);
  });

  test('change password › the current one must match; then the new one signs in and the old one does not', async () => {
    const c = dashboardClient(s.url);
    await c.post('/session', { email: owner.email, password: owner.password });
    const wrong = await c.put('/session/password', {
      current_password: 'not it at all',
      new_password: 'a brand new password',
    });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body.data, { current_password: ['The current password is not correct'] });
    assert.equal(
      (await c.put('/session/password', { current_password: owner.password, new_password: 'short' })).status,
      400,
    );
    assert.equal(
      (await c.put('/session/password', { current_password: owner.password, new_password: 'a brand new password' }))
        .status,
      200,
    );
    assert.equal(
      (await dashboardClient(s.url).post('/session', { email: owner.email, password: owner.password })).status,
      401,
    );
    assert.equal(
      (await dashboardClient(s.url).post('/session', { email: owner.email, password: 'a brand new password' })).status,
      200,
    );
    owner.password = 'a brand new password';
  });

  test('sign in › CSRF: a sign-in POST without the x-mailgrove-csrf header is refused (403)', async () => {
    const r = await dashboardClient(s.url).post(
      '/session',
      { email: owner.email, password: owner.password },
      { csrf: false },
    );
    assert.equal(r.status, 403);
    assert.equal(r.headers.getSetCookie().length, 0);
  });

  test('sign in › 10 wrong passwords a minute per address, then 429', async () => {
    const c = dashboardClient(s.url);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await c.post('/session', { email: 'guess@acme.test', password: `guess-${i}-xxxx` })).status);
    assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
  });
});
