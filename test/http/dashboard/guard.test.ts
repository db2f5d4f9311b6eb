// The dashboard's JSON API (/app/api): session required everywhere, CSRF on writes, roles, API keys
// (spec Authentication 2–3: name required, raw key shown once, revoke takes effect immediately),
// tenant scoping (another account's id → 404), settings, subscribers + notes, outbox, imports.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import * as users from '../../../src/domain/accounts/users.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { dashboardClient, signedIn } from './session.ts';
import { routesOf } from '../../support/fuzz.ts';

const s = await startServer(fileScope);

// every route that needs a session (method, path), read from the router so a new route is covered the day
// it is added; ids are random, the guard answers before the route
const ID = randomUUID();
const SIGN_IN = new Set([
  'GET /setup',
  'POST /setup/owner',
  'POST /session',
  'DELETE /session',
  // the second factor, and the links mailed to people who cannot sign in yet (security.ts, invitations.ts)
  'POST /session/two-factor',
  'POST /invitation/preview',
  'POST /invitation/accept',
  'POST /password-reset',
  'POST /password-reset/check',
  'POST /password-reset/complete',
]);
const PROTECTED: [string, string][] = routesOf(s.running.app)
  .filter((r) => r.path.startsWith('/app/api/'))
  .flatMap((r) =>
    r.methods
      .filter((m) => m !== 'HEAD')
      .map((m): [string, string] => [
        m,
        r.path.slice('/app/api'.length).replace(/:\w+/g, ID).replace('*', 'no-such-route'),
      ]),
  )
  .filter(([m, p]) => !SIGN_IN.has(`${m} ${p}`));

test('the route list covers the campaign routes and the rest', () => {
  const paths = PROTECTED.map(([m, p]) => `${m} ${p}`);
  for (const route of [
    'GET /campaigns',
    `POST /campaigns/${ID}/test`,
    `GET /campaigns/${ID}/recipients.csv`,
    'GET /keys',
  ])
    assert.ok(paths.includes(route), route);
});

describe('session required', () => {
  test('every /app/api route without a session → 401 Unauthorized', async () => {
    const c = dashboardClient(s.url);
    for (const [method, path] of PROTECTED) {
      const r = await c.raw(method, `/app/api${path}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(r.status, 401, `${method} ${path}`);
      assert.deepEqual(
        r.body,
        { success: false, error: 'Unauthorized', message: 'Sign in to continue' },
        `${method} ${path}`,
      );
    }
  });

  test('a made-up or API-key credential is no session: 401', async () => {
    const { key } = await s.newAccount();
    const forged = await fetch(`${s.url}/app/api/me`, { headers: { cookie: 'mailgrove_session=forged' } });
    assert.equal(forged.status, 401);
    const bearer = await fetch(`${s.url}/app/api/keys`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(bearer.status, 401);
  });

  test('a removed member loses access on the next request', async () => {
    const owner = await signedIn(s, 'owner');
    const editor = await signedIn(s, 'editor', owner.accountId);
    assert.equal((await editor.client.get('/keys')).status, 200);
    assert.equal((await owner.client.delete(`/members/${editor.userId}`)).status, 200);
    assert.equal((await editor.client.get('/keys')).status, 401);
  });
});

describe('CSRF', () => {
  test('a state-changing request without the x-mailgrove-csrf header → 403, nothing created', async () => {
    const { client, accountId } = await signedIn(s);
    const r = await client.post('/keys', { name: 'csrf', scopes: ['*'] }, { csrf: false });
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'Missing x-mailgrove-csrf header');
    assert.equal(
      (await s.db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).execute()).length,
      0,
    );
  });

  test('an Origin that is not ours → 403 even with the header; our own origin is accepted', async () => {
    const { client } = await signedIn(s);
    const evil = await client.post(
      '/keys',
      { name: 'csrf', scopes: ['*'] },
      { headers: { origin: 'https://evil.example' } },
    );
    assert.equal(evil.status, 403);
    assert.equal(evil.body.message, 'Cross-origin request refused');
    const own = await client.post('/keys', { name: 'ok', scopes: ['*'] }, { headers: { origin: s.url } });
    assert.equal(own.status, 201);
  });
});

describe('API keys in the dashboard (spec Authentication 2–3)', () => {
  test('create › returns the raw key once; only its SHA-256 is stored; lists show the hint only', async () => {
    const { client, accountId, userId } = await signedIn(s);
    const r = await client.post('/keys', { name: 'Website signup', scopes: ['subscribers:write', 'forms:read'] });
    assert.equal(r.status, 201);
    const raw: string = r.body.data.key;
    assert.match(raw, /^mailgrove_[0-9a-f]{32}$/);
    assert.equal(r.body.data.name, 'Website signup');
    assert.deepEqual(r.body.data.scopes, ['subscribers:write', 'forms:read']);
    const row = await s.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(raw).digest('hex'));
    assert.equal(row.user_id, userId);
    assert.ok(!JSON.stringify(row).includes(raw.slice(10)), 'the raw key is stored nowhere');
    const list = await client.get('/keys');
    assert.equal(list.body.data.keys.length, 1);
    assert.equal(list.body.data.keys[0].hint, `mailgrove_…${raw.slice(-4)}`);
    assert.ok(!JSON.stringify(list.body).includes(raw.slice(10)), 'the key cannot be retrieved later');
  });

  test('create › name is required (400 with fields.name); unknown scope → 400', async () => {
    const { client } = await signedIn(s);
    const noName = await client.post('/keys', { name: '  ', scopes: ['*'] });
    assert.equal(noName.status, 400);
    assert.deepEqual(noName.body.data.name, ['Name is required']);
    const badScope = await client.post('/keys', { name: 'x', scopes: ['everything'] });
    assert.equal(badScope.status, 400);
    assert.ok(badScope.body.data['scopes.0']);
  });

  test('the key works on REST: test-auth reports the name given and the creating user', async () => {
    const { client, userId } = await signedIn(s);
    const { key } = (await client.post('/keys', { name: 'Agent key', scopes: ['*'] })).body.data;
    const r = await restClient(s.url, key).get('/test-auth');
    assert.equal(r.status, 200);
    assert.equal(r.body.data.api_key_name, 'Agent key');
    assert.equal(r.body.data.user_id, userId);
    assert.match(r.body.data.idp_user_id, /^local\|/);
  });

  test('revoke › the next REST request with the key gets 401 (immediately)', async () => {
    const { client } = await signedIn(s);
    const created = (await client.post('/keys', { name: 'to revoke', scopes: ['*'] })).body.data;
    const rest = restClient(s.url, created.key);
    assert.equal((await rest.get('/test-auth')).status, 200);
    const r = await client.delete(`/keys/${created.id}`);
    assert.equal(r.status, 200);
    const after = await rest.get('/test-auth');
    assert.equal(after.status, 401);
    assert.equal(after.body.success, false);
    const listed = (await client.get('/keys')).body.data.keys[0];
    assert.ok(listed.revoked_at);
  });

  test('optional expiry is stored and an expired key gets 401', async () => {
    const { client } = await signedIn(s);
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = (await client.post('/keys', { name: 'short-lived', scopes: ['*'], expires_at: soon })).body.data;
    assert.equal(new Date(created.expires_at).toISOString(), soon);
    await new Promise((r) => setTimeout(r, 1600));
    assert.equal((await restClient(s.url, created.key).get('/test-auth')).status, 401);
  });

  test("another account's key id → 404 API key not found, and it stays active", async () => {
    const a = await signedIn(s);
    const b = await signedIn(s);
    const keyOfA = (await a.client.post('/keys', { name: 'A', scopes: ['*'] })).body.data;
    const r = await b.client.delete(`/keys/${keyOfA.id}`);
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'API key not found');
    assert.equal((await restClient(s.url, keyOfA.key).get('/test-auth')).status, 200);
    assert.equal((await b.client.delete('/keys/not-a-uuid')).status, 404);
  });
});

describe('roles', () => {
  test('viewer: can read, cannot create/revoke keys or change settings (403)', async () => {
    const owner = await signedIn(s, 'owner');
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    const key = (await owner.client.post('/keys', { name: 'owner key', scopes: ['*'] })).body.data;
    assert.equal((await viewer.client.get('/keys')).status, 200);
    assert.equal((await viewer.client.get('/settings')).status, 200);
    const create = await viewer.client.post('/keys', { name: 'viewer key', scopes: ['*'] });
    assert.equal(create.status, 403);
    assert.deepEqual(create.body, {
      success: false,
      error: 'Forbidden',
      message: 'Your role (viewer) does not allow this',
    });
    assert.equal((await viewer.client.delete(`/keys/${key.id}`)).status, 403);
    assert.equal((await viewer.client.patch('/settings', { timezone: 'Europe/Berlin' })).status, 403);
    assert.equal((await viewer.client.post('/members', { email: 'x@example.com', role: 'admin' })).status, 403);
    assert.equal((await restClient(s.url, key.key).get('/test-auth')).status, 200, 'the key was not revoked');
    assert.equal(
      (await s.db.selectFrom('api_keys').select('id').where('account_id', '=', owner.accountId).execute()).length,
      1,
    );
    assert.deepEqual((await viewer.client.get('/me')).body.data.permissions, ['read']);
  });

  test('editor: can add subscribers and notes, cannot manage keys', async () => {
    const owner = await signedIn(s, 'owner');
    const editor = await signedIn(s, 'editor', owner.accountId);
    assert.equal((await editor.client.post('/subscribers', { email: 'ed@example.com' })).status, 201);
    assert.equal((await editor.client.post('/keys', { name: 'k', scopes: ['*'] })).status, 403);
  });

  test('the permission table: owner/admin manage, editor edits, viewer reads', () => {
    assert.deepEqual(
      users.ROLES.map((r) => [r, users.can(r, 'read'), users.can(r, 'edit'), users.can(r, 'manage')]),
      [
        ['owner', true, true, true],
        ['admin', true, true, true],
        ['editor', true, true, false],
        ['viewer', true, false, false],
      ],
    );
  });
});

describe('settings', () => {
  test('PATCH /settings changes sender defaults, tracking, verify_emails and timezone', async () => {
    const { client, accountId } = await signedIn(s);
    const r = await client.patch('/settings', {
      default_from_name: 'Acme',
      default_from_email: 'news@acme.test',
      default_reply_to: 'help@acme.test',
      tracking_enabled: false,
      verify_emails: true,
      timezone: 'Europe/Berlin',
    });
    assert.equal(r.status, 200);
    const row = await s.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
    assert.deepEqual(
      [
        row.default_from_name,
        row.default_from_email,
        row.default_reply_to,
        row.tracking_enabled,
        row.verify_emails,
        row.timezone,
      ],
      ['Acme', 'news@acme.test', 'help@acme.test', false, true, 'Europe/Berlin'],
    );
  });

  test('the plan limit is not editable here (400), nor is a bad sender address', async () => {
    const { client, accountId } = await signedIn(s);
    assert.equal((await client.patch('/settings', { subscriber_limit: 10_000_000 })).status, 400);
    const bad = await client.patch('/settings', { default_from_email: 'nope' });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.default_from_email);
    assert.equal(
      (
        await s.db
          .selectFrom('accounts')
          .select('subscriber_limit')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).subscriber_limit,
      1000,
    );
  });
});

describe('subscribers and notes', () => {
  test('list/search, view one with getFull, add a note (stored in subscriber_notes)', async () => {
    const { client, accountId } = await signedIn(s);
    const created = (await client.post('/subscribers', { email: 'grace@example.com', first_name: 'Grace' })).body.data;
    assert.equal(created.source, 'dashboard');
    await client.post('/subscribers', { email: 'alan@example.com' });
    const found = await client.get('/subscribers?search=grace');
    assert.deepEqual(
      found.body.data.subscribers.map((x: { email: string }) => x.email),
      ['grace@example.com'],
    );
    const note = await client.post(`/subscribers/${created.id}/notes`, { content: 'Met at the conference' });
    assert.equal(note.status, 201);
    assert.deepEqual(Object.keys(note.body.data).sort(), ['content', 'created_at', 'id']);
    const full = await client.get(`/subscribers/${created.id}`);
    assert.deepEqual(
      full.body.data.notes.map((n: { content: string }) => n.content),
      ['Met at the conference'],
    );
    const rows = await s.db.selectFrom('subscriber_notes').selectAll().where('account_id', '=', accountId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.subscriber_id, created.id);
    assert.equal((await client.get('/overview')).body.data.total, 2);
  });

  test("empty note → 400; another account's subscriber → 404 for view and note, nothing written", async () => {
    const a = await signedIn(s);
    const b = await signedIn(s);
    const sub = (await a.client.post('/subscribers', { email: 'private@example.com' })).body.data;
    assert.equal((await a.client.post(`/subscribers/${sub.id}/notes`, { content: '   ' })).status, 400);
    const view = await b.client.get(`/subscribers/${sub.id}`);
    assert.equal(view.status, 404);
    assert.equal(view.body.error, 'Subscriber not found');
    assert.equal((await b.client.post(`/subscribers/${sub.id}/notes`, { content: 'sneaky' })).status, 404);
    assert.equal(
      (await s.db.selectFrom('subscriber_notes').select('id').where('subscriber_id', '=', sub.id).execute()).length,
      0,
    );
  });
});

describe('outbox', () => {
  test('newest first, scoped by account; the HTML is served under a no-network sandbox CSP', async () => {
    const a = await signedIn(s);
    const b = await signedIn(s);
    const insert = (accountId: string, subject: string, created_at: Date) =>
      s.db
        .insertInto('outbox')
        .values({
          account_id: accountId,
          message_id: `<${randomUUID()}@test>`,
          from_addr: 'a@acme.test',
          to_addr: 'x@example.com',
          subject,
          html: '<p>Hello <img src="http://127.0.0.1/t/o/x"></p>',
          text: 'Hello',
          headers: '{}',
          created_at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    await insert(a.accountId, 'older', new Date(Date.now() - 60_000));
    const newer = await insert(a.accountId, 'newer', new Date());
    const other = await insert(b.accountId, 'not yours', new Date());
    const list = await a.client.get('/outbox');
    assert.deepEqual(
      list.body.data.messages.map((m: { subject: string }) => m.subject),
      ['newer', 'older'],
    );
    assert.equal(list.body.data.pagination.total_count, 2);
    const html = await a.client.get(`/outbox/${newer.id}/html`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type')!, /text\/html/);
    assert.match(html.headers.get('content-security-policy')!, /default-src 'none'.*sandbox/);
    assert.equal(html.body, '<p>Hello <img src="http://127.0.0.1/t/o/x"></p>');
    assert.equal((await a.client.get(`/outbox/${other.id}`)).status, 404);
    assert.equal((await a.client.get(`/outbox/${other.id}/html`)).status, 404);
  });
});

describe('imports', () => {
  test('upload a CSV from the page → a job; history lists it with its counts; another account → 404', async () => {
    const a = await signedIn(s);
    const b = await signedIn(s);
    const form = new FormData();
    form.append(
      'file',
      new Blob(['email,first_name\nada@example.com,Ada\nbad-email,X\n'], { type: 'text/csv' }),
      'people.csv',
    );
    const r = await a.client.post('/imports', form);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const id = r.body.data.job_id;
    let job = r.body.data;
    for (let i = 0; i < 300 && job.status === 'processing'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      job = (await a.client.get(`/imports/${id}`)).body.data;
    }
    assert.equal(job.status, 'completed');
    assert.equal(job.file_name, 'people.csv');
    assert.deepEqual([job.total_rows, job.created_count, job.failed_count], [2, 1, 1]);
    const history = await a.client.get('/imports');
    assert.deepEqual(
      history.body.data.imports.map((j: { job_id: string }) => j.job_id),
      [id],
    );
    assert.equal((await b.client.get(`/imports/${id}`)).status, 404);
    assert.equal((await b.client.get('/imports')).body.data.imports.length, 0);
  });

  test('a viewer cannot upload (403)', async () => {
    const owner = await signedIn(s);
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    const form = new FormData();
    form.append('file', new Blob(['email\nx@example.com\n']), 'x.csv');
    assert.equal((await viewer.client.post('/imports', form)).status, 403);
  });
});

describe('segments and forms', () => {
  test('the builder vocabulary comes from the domain: fields incl. custom ones, operators per kind, groups', async () => {
    const { client, accountId } = await signedIn(s);
    await s.db
      .insertInto('fields')
      .values({ account_id: accountId, key: 'plan', name: 'Plan', type: 'text' })
      .execute();
    const a = (await client.get('/audience')).body.data;
    assert.ok(
      a.fields.some((f: { field: string; kind: string }) => f.field === 'custom_fields.plan' && f.kind === 'text'),
    );
    assert.deepEqual(a.operators.status, ['eq', 'neq', 'in', 'not_in']);
    assert.deepEqual(a.statuses, ['active', 'unsubscribed', 'bounced', 'complained']);
  });

  test('create a segment → live count; bad rule → 400 naming the rule; viewer 403; other account 404', async () => {
    const owner = await signedIn(s);
    await owner.client.post('/subscribers', { email: 'one@example.com' });
    await owner.client.post('/subscribers', { email: 'two@other.test' });
    const r = await owner.client.post('/segments', {
      name: 'Example people',
      filter: { match: 'all', rules: [{ field: 'email', operator: 'ends_with', value: '@example.com' }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.subscriber_count, 1);
    const bad = await owner.client.post('/segments', {
      name: 'Bad',
      filter: { match: 'all', rules: [{ field: 'email', operator: 'gt', value: 3 }] },
    });
    assert.equal(bad.status, 400);
    assert.ok(Object.keys(bad.body.data).some((k) => k.startsWith('filter.rules.0')));
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal(
      (
        await viewer.client.post('/segments', {
          name: 'V',
          filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] },
        })
      ).status,
      403,
    );
    const other = await signedIn(s);
    assert.equal((await other.client.delete(`/segments/${r.body.data.id}`)).status, 404);
    assert.equal((await owner.client.get('/segments')).body.data.segments.length, 1);
  });

  test('create a form → its hosted URL and embed snippet; another account → 404', async () => {
    const owner = await signedIn(s);
    const r = await owner.client.post('/forms', {
      name: 'Newsletter',
      type: 'hosted',
      fields: [{ key: 'email', required: true }, { key: 'first_name' }],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.url, `${s.config.publicUrl}/f/${r.body.data.id}`);
    assert.match(r.body.data.embed, /<form/);
    assert.equal((await (await signedIn(s)).client.get(`/forms/${r.body.data.id}`)).status, 404);
    assert.equal((await owner.client.post('/forms', { name: '' })).status, 400);
  });
});

describe('accounts and team', () => {
  test('a member of two accounts switches between them; not a member → 404', async () => {
    const first = await signedIn(s);
    const second = await signedIn(s);
    await users.addMember(s.db, second.accountId, { email: first.email, role: 'viewer' }, 'oidc');
    const me = (await first.client.get('/me')).body.data;
    assert.equal(me.accounts.length, 2);
    assert.equal((await first.client.put('/session/account', { account_id: second.accountId })).status, 200);
    const after = (await first.client.get('/me')).body.data;
    assert.equal(after.account.id, second.accountId);
    assert.equal(after.role, 'viewer');
    const stranger = await signedIn(s);
    assert.equal((await first.client.put('/session/account', { account_id: stranger.accountId })).status, 404);
  });

  test('add a member with a password → they can sign in; the last owner cannot be removed', async () => {
    const owner = await signedIn(s);
    const added = await owner.client.post('/members', {
      email: 'new.member@example.com',
      role: 'editor',
      password: 'member password',
    });
    assert.equal(added.status, 201);
    assert.equal(added.body.data.role, 'editor');
    const c = dashboardClient(s.url);
    assert.equal(
      (await c.post('/session', { email: 'new.member@example.com', password: 'member password' })).status,
      200,
    );
    assert.equal((await c.get('/me')).body.data.role, 'editor');
    assert.equal(
      (await owner.client.post('/members', { email: 'new.member@example.com', role: 'viewer' })).status,
      409,
    );
    const removeSelf = await owner.client.delete(`/members/${owner.userId}`);
    assert.equal(removeSelf.status, 409);
    assert.equal(removeSelf.body.error, 'The last owner cannot be removed');
  });
});

describe('the SPA', () => {
  test('/ and client routes serve the app (or, without a build, an HTML page saying how to build it)', async () => {
    for (const path of ['/', '/app/keys', '/app/subscribers/123']) {
      const r = await fetch(s.url + path);
      assert.ok([200, 503].includes(r.status), path);
      assert.match(r.headers.get('content-type')!, /text\/html/);
      const body = await r.text();
      if (r.status === 200) {
        assert.match(body, /<div id="root"><\/div>/);
        assert.match(r.headers.get('content-security-policy')!, /default-src 'self'/);
      } else assert.match(body, /npm run build:web/);
    }
  });
});

describe('API keys in the dashboard: expires_at', () => {
  test('not an ISO date-time with offset, or a year PostgreSQL cannot store → 400 naming expires_at; a good one is kept', async () => {
    const { client } = await signedIn(s);
    for (const expires_at of [
      '12345',
      12345,
      '2026-13-01T00:00:00Z',
      '2026-01-01',
      '0000-01-01T00:00:00Z',
      '+275760-09-13T00:00:00Z',
    ]) {
      const r = await client.post('/keys', { name: 'k', scopes: ['*'], expires_at });
      assert.equal(r.status, 400, `${expires_at}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /^expires_at: Must be an ISO 8601 date-time with a UTC offset/);
    }
    const ok = await client.post('/keys', { name: 'k', scopes: ['*'], expires_at: '2031-01-01T00:00:00Z' });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(new Date(ok.body.data.expires_at).toISOString(), '2031-01-01T00:00:00.000Z');
  });
});
