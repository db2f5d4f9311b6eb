// Spec "Test authentication" and "Authentication" (every 401 case), scopes on REST (403 body,
// test-auth with any key, <resource>:* and * patterns) and the per-key REST rate limit.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as apiKeys from '../../../src/domain/accounts/apiKeys.ts';
import { sql } from 'kysely';
import { backend } from '../../support/db.ts';
import { keysOf, restClient, startServer } from '../../support/server.ts';
import { mcpClient } from '../mcp/client.ts';

const s = await startServer({ after });
const limited = await startServer({ after }, { REST_RATE_LIMIT: 5 });

/** Every REST route of the spec (plus fields) with the scope gives it; ids are random, so a pass is 404/400, not 403. */
const ROUTES: { method: 'get' | 'post' | 'put' | 'delete'; path: string; scope: string | null }[] = [
  { method: 'get', path: '/test-auth', scope: null },
  { method: 'get', path: '/subscribers', scope: 'subscribers:read' },
  { method: 'get', path: '/subscribers/stats', scope: 'subscribers:read' },
  { method: 'get', path: '/subscribers/00000000-0000-0000-0000-000000000000', scope: 'subscribers:read' },
  { method: 'post', path: '/subscribers', scope: 'subscribers:write' },
  { method: 'put', path: '/subscribers/00000000-0000-0000-0000-000000000000', scope: 'subscribers:write' },
  { method: 'delete', path: '/subscribers/00000000-0000-0000-0000-000000000000', scope: 'subscribers:write' },
  { method: 'get', path: '/fields', scope: 'subscribers:read' },
  { method: 'post', path: '/fields', scope: 'subscribers:write' },
  { method: 'delete', path: '/fields/00000000-0000-0000-0000-000000000000', scope: 'subscribers:write' },
];

function request(key: string | undefined, route: (typeof ROUTES)[number]) {
  const api = restClient(s.url, key);
  return route.method === 'post' || route.method === 'put'
    ? api[route.method](route.path, {})
    : api[route.method](route.path);
}

function assert401(res: { status: number; body: any }, what: string) {
  assert.equal(res.status, 401, what);
  assert.equal(res.body.success, false, what);
  assert.equal(res.body.error, 'Unauthorized', what);
  assert.equal(typeof res.body.message, 'string', what);
  assert.deepEqual(keysOf(res.body), ['error', 'message', 'success'], what);
}

describe('Test authentication', () => {
  test('Test authentication › 200 success, message, data = user_id, idp_user_id, api_key_name, authenticated_at', async () => {
    const { key, userId } = await s.newAccount({ scopes: ['groups:read'] });
    const res = await restClient(s.url, key).get('/test-auth');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['data', 'message', 'success']);
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.message, 'string');
    assert.deepEqual(keysOf(res.body.data), ['api_key_name', 'authenticated_at', 'idp_user_id', 'user_id']);
    const user = await s.db.selectFrom('users').selectAll().where('id', '=', userId!).executeTakeFirstOrThrow();
    assert.equal(res.body.data.user_id, user.id);
    assert.equal(res.body.data.idp_user_id, user.idp_user_id);
    assert.equal(res.body.data.api_key_name, 'test key');
    assert.ok(Math.abs(Date.parse(res.body.data.authenticated_at) - Date.now()) < 60_000);
  });

  test('Test authentication › an account made without an owner email: user_id is a UUID, idp_user_id its service identity', async () => {
    const account = await accounts.create(s.db, { name: 'No owner email' }, 1000);
    const { key } = await apiKeys.create(s.db, account.id, { name: 'ops key', scopes: ['*'] });
    const res = await restClient(s.url, key).get('/test-auth');
    assert.equal(res.status, 200);
    assert.match(res.body.data.user_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(
      [res.body.data.user_id, res.body.data.idp_user_id, res.body.data.api_key_name],
      [account.owner.id, `service|${account.id}`, 'ops key'],
    );
  });

  test('Test authentication › 401 success false, error string', async () => {
    assert401(await restClient(s.url).get('/test-auth'), 'no key');
    assert401(await restClient(s.url, 'mailgrove_ffffffffffffffffffffffffffffffff').get('/test-auth'), 'unknown key');
  });
});

describe('Authentication', () => {
  test('Authentication › missing header → 401', async () => {
    for (const route of ROUTES) assert401(await request(undefined, route), `${route.method} ${route.path}`);
  });

  test('Authentication › header not in Bearer form → 401', async () => {
    const { key } = await s.newAccount();
    for (const header of [
      key,
      `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
      `Token ${key}`,
      'Bearer',
      'Bearer ',
      `Bearer ${key} extra`,
      `Bearer: ${key}`,
      '',
    ]) {
      const res = await restClient(s.url).get('/test-auth', { authorization: header });
      assert401(res, JSON.stringify(header));
    }
  });

  test('Authentication › unknown key → 401', async () => {
    for (const key of [
      'mailgrove_00000000000000000000000000000000',
      'mailgrove_0000',
      'sk_live_abc',
      'MAILGROVE_00000000000000000000000000000000',
      "mailgrove_' or 1=1 --",
    ]) {
      assert401(await restClient(s.url, key).get('/subscribers'), key);
    }
  });

  test('Authentication › revoked key → 401 on the very next request', async () => {
    const { key, accountId } = await s.newAccount();
    const api = restClient(s.url, key);
    assert.equal((await api.get('/subscribers')).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await api.get('/test-auth')).status, 200, 'warm: the key is cached');
    const [info] = await apiKeys.list(s.db, accountId);
    await apiKeys.revoke(s.db, accountId, info!.id);
    for (const route of ROUTES) assert401(await request(key, route), `${route.method} ${route.path}`);
  });

  test('Authentication › a key revoked elsewhere (another instance, the CLI, SQL) → 401 within about a second', async () => {
    const { key, accountId } = await s.newAccount();
    const api = restClient(s.url, key);
    for (let i = 0; i < 3; i++) assert.equal((await api.get('/test-auth')).status, 200, 'warm: the key is cached');
    // what another process does: the row changes, nothing in this process is told
    await s.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('account_id', '=', accountId).execute();
    const started = Date.now();
    let res = await api.get('/test-auth');
    while (res.status === 200 && Date.now() - started < 5000) {
      await new Promise((r) => setTimeout(r, 100));
      res = await api.get('/test-auth');
    }
    assert401(res, 'revoked by SQL');
    assert.equal(res.body.message, 'API key has been revoked');
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  });

  test(
    'Authentication › on PostgreSQL a key revoked by another instance is refused on the very next request, before its notice arrives',
    { skip: backend !== 'postgres' && 'PostgreSQL only: PGlite is one process' },
    async () => {
      const { key, accountId } = await s.newAccount();
      const api = restClient(s.url, key);
      for (let i = 0; i < 3; i++) assert.equal((await api.get('/test-auth')).status, 200, 'warm: the key is cached');
      // another instance's revocation whose notice has not reached this one yet: triggers off, so none comes
      await s.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('account_id', '=', accountId).execute();
      });
      assert.equal((await mcpClient(s.url, key).rpc('ping')).status, 401, 'the next MCP request');
      const res = await api.get('/test-auth');
      assert401(res, 'the next REST request');
      assert.equal(res.body.message, 'API key has been revoked');
    },
  );

  test('Authentication › a key that expires while in use → 401 expired (also when it was cached)', async () => {
    const { accountId } = await s.newAccount();
    const soon = await s.newKey(accountId, ['*'], { expires_at: new Date(Date.now() + 1500) });
    const api = restClient(s.url, soon.key);
    assert.equal((await api.get('/test-auth')).status, 200);
    assert.equal((await api.get('/test-auth')).status, 200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await api.get('/test-auth');
    assert401(res, 'expired in use');
    assert.equal(res.body.message, 'API key has expired');
  });

  test('Authentication › expired key → 401; a key before its expiry works', async () => {
    const { accountId } = await s.newAccount();
    const expired = await s.newKey(accountId, ['*'], { expires_at: new Date(Date.now() - 1000) });
    const res = await restClient(s.url, expired.key).get('/subscribers');
    assert401(res, 'expired');
    const valid = await s.newKey(accountId, ['*'], { expires_at: new Date(Date.now() + 3_600_000) });
    assert.equal((await restClient(s.url, valid.key).get('/subscribers')).status, 200);
  });

  test('Authentication › the Bearer scheme is case-insensitive (RFC 9110)', async () => {
    const { key } = await s.newAccount();
    assert.equal((await restClient(s.url).get('/test-auth', { authorization: `bearer ${key}` })).status, 200);
  });

  test('Authentication › a request records last_used_at on the key', async () => {
    const { key, accountId } = await s.newAccount();
    assert.equal((await apiKeys.list(s.db, accountId))[0]!.last_used_at, null);
    await restClient(s.url, key).get('/test-auth');
    let used: Date | null = null;
    for (let i = 0; i < 100 && !used; i++) {
      used = (await apiKeys.list(s.db, accountId))[0]!.last_used_at;
      if (!used) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(used && Math.abs(new Date(used).getTime() - Date.now()) < 60_000);
  });
});

describe('Scopes on REST', () => {
  test('Scopes on REST › 403 {success:false, error:"Forbidden", message:"API key lacks the required permission: <scope>"}', async () => {
    for (const granted of [['groups:*'], ['campaigns:read', 'campaigns:write']]) {
      const { key } = await s.newAccount({ scopes: granted });
      for (const route of ROUTES.filter((r) => r.scope)) {
        const res = await request(key, route);
        assert.equal(res.status, 403, `${route.method} ${route.path}`);
        assert.deepEqual(res.body, {
          success: false,
          error: 'Forbidden',
          message: `API key lacks the required permission: ${route.scope}`,
        });
      }
    }
  });

  test('Scopes on REST › subscribers:read opens reads only; subscribers:write opens writes only', async () => {
    for (const granted of ['subscribers:read', 'subscribers:write']) {
      const { key } = await s.newAccount({ scopes: [granted] });
      for (const route of ROUTES.filter((r) => r.scope)) {
        const res = await request(key, route);
        if (route.scope === granted) assert.notEqual(res.status, 403, `${granted} ${route.method} ${route.path}`);
        else
          assert.deepEqual(
            [res.status, res.body.message],
            [403, `API key lacks the required permission: ${route.scope}`],
          );
      }
    }
  });

  test('Scopes on REST › subscribers:* and * permit every subscriber route', async () => {
    for (const granted of [['subscribers:*'], ['*']]) {
      const { key } = await s.newAccount({ scopes: granted });
      for (const route of ROUTES) {
        const res = await request(key, route);
        assert.ok([200, 400, 404].includes(res.status), `${granted} ${route.method} ${route.path} → ${res.status}`);
      }
    }
  });

  test('Scopes on REST › test-auth accepts any valid key, whatever its scopes', async () => {
    for (const granted of [['forms:read'], ['webhooks:write'], ['subscribers:read']]) {
      const { key } = await s.newAccount({ scopes: granted });
      assert.equal((await restClient(s.url, key).get('/test-auth')).status, 200, granted.join());
    }
  });

  test('Scopes on REST › a refused write changes nothing', async () => {
    const { key, accountId } = await s.newAccount({ scopes: ['subscribers:read'] });
    assert.equal((await restClient(s.url, key).post('/subscribers', { email: 'a@example.com' })).status, 403);
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      0,
    );
  });
});

describe('REST rate limit', () => {
  test('REST rate limit › 429 {success:false, error, data:{retry_after}} with Retry-After and RateLimit-* headers', async () => {
    const { key } = await limited.newAccount();
    const api = restClient(limited.url, key);
    for (let i = 1; i <= 5; i++) {
      const res = await api.get('/test-auth');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
      const reset = Number(res.headers.get('ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60);
    }
    const res = await api.get('/subscribers');
    assert.equal(res.status, 429);
    assert.deepEqual(keysOf(res.body), ['data', 'error', 'success']);
    assert.equal(res.body.success, false);
    assert.equal(typeof res.body.error, 'string');
    assert.deepEqual(keysOf(res.body.data), ['retry_after']);
    const retry = res.body.data.retry_after;
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
    assert.equal(res.headers.get('retry-after'), String(retry));
    assert.equal(res.headers.get('ratelimit-limit'), '5');
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
  });

  test('REST rate limit › another key (even of the same account) is unaffected', async () => {
    const { key, accountId } = await limited.newAccount();
    const api = restClient(limited.url, key);
    for (let i = 0; i < 6; i++) await api.get('/test-auth');
    assert.equal((await api.get('/test-auth')).status, 429);
    const sibling = await limited.newKey(accountId);
    assert.equal((await restClient(limited.url, sibling.key).get('/test-auth')).status, 200);
    const stranger = await limited.newAccount();
    assert.equal((await restClient(limited.url, stranger.key).get('/test-auth')).status, 200);
  });

  test('REST rate limit › refused requests do nothing', async () => {
    const { key, accountId } = await limited.newAccount();
    const api = restClient(limited.url, key);
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await api.post('/subscribers', { email: `r${i}@example.com` })).status);
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429, 429, 429]);
    assert.equal(
      (await limited.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      5,
    );
  });

  test('REST rate limit › requests without a valid key are answered 401, not counted against anyone', async () => {
    const { key } = await limited.newAccount();
    for (let i = 0; i < 8; i++)
      assert.equal(
        (await restClient(limited.url, 'mailgrove_00000000000000000000000000000000').get('/test-auth')).status,
        401,
      );
    assert.equal((await restClient(limited.url, key).get('/test-auth')).status, 200);
  });
});
