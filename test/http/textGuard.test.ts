// The text rule at every door (domain/storable.ts, applied by http/textGuard.ts and MCP's argument check)
// and the database-error net under it (domain/storageErrors.ts): text PostgreSQL cannot store or that
// holds control characters is a 400 naming the field on every face, accepted text is stored in NFC, a
// provider's bounce report is kept whatever it holds, and a database error that input causes is a 4xx.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { Conflict, Validation } from '../../src/domain/errors.ts';
import { fromStorageError } from '../../src/domain/storageErrors.ts';
import { mcpClient } from './mcp/client.ts';
import { dashboardClient, signedIn } from './dashboard/session.ts';
import { bounceSecretOf } from '../support/rows.ts';
import { fileScope } from '../support/scope.ts';
import { ADMIN_TOKEN, client, startServer } from '../support/server.ts';

const s = await startServer(fileScope);
const NUL = 'a\u0000b';
const REFUSED = 'Must not contain NUL, control characters or unpaired surrogates';
const MIXED = '😀 𝕏 ﷽ \u202eRTL\u202c zero\u200bwidth Ω ß İ';

describe('Text rule › refused at every face with a 400 naming the field', () => {
  test('REST: NUL in a segment name, a form name and a group name; a bell character in a subscriber name', async () => {
    const { api } = await s.restAccount();
    const filter = { match: 'all', rules: [{ field: 'email', operator: 'contains', value: 'x' }] };
    for (const [path, body, field] of [
      ['/segments', { name: NUL, filter }, 'name'],
      ['/forms', { name: NUL }, 'name'],
      ['/groups', { name: NUL }, 'name'],
      ['/subscribers', { email: 'bell@example.com', first_name: 'ring\u0007' }, 'first_name'],
      ['/subscribers', { email: 'c1@example.com', fields: { company: 'x\u0085y' } }, 'fields.company'],
    ] as const) {
      const res = await api.post(path, body);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body.data, { [field]: [REFUSED] });
    }
    // tab, line feed and carriage return are text
    assert.equal((await api.post('/groups', { name: 'Tab\there' })).status, 201);
  });

  test('admin API and dashboard: NUL in an account name and in a sign-in email', async () => {
    const admin = client(s.url, ADMIN_TOKEN);
    const account = await admin.post('/admin/v1/accounts', { name: NUL });
    assert.equal(account.status, 400);
    assert.deepEqual(account.body.data, { name: [REFUSED] });
    const signIn = await dashboardClient(s.url).post('/session', { email: `ada${NUL}@example.com`, password: 'x' });
    assert.equal(signIn.status, 400, JSON.stringify(signIn.body));
    assert.deepEqual(signIn.body.data, { email: [REFUSED] });
  });

  test('dashboard: NUL in a note', async () => {
    const { client: app } = await signedIn(s);
    const sub = await app.post('/subscribers', { email: 'noted@example.com' });
    const res = await app.post(`/subscribers/${sub.body.data.id}/notes`, { body: NUL });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { body: [REFUSED] });
  });

  test('MCP: a control character in a tool argument is -32602 naming it', async () => {
    const { key } = await s.newAccount();
    const res = await mcpClient(s.url, key).rpc('tools/call', {
      name: 'create_group',
      arguments: { name: 'x\u001by' },
    });
    assert.equal(res.body.error.code, -32602);
    assert.deepEqual(res.body.error.data, { fields: { name: [REFUSED] } });
  });

  test('a query string is held to the same rule', async () => {
    const { api } = await s.restAccount();
    const res = await api.get(`/subscribers?search=${encodeURIComponent('x\u0001')}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.data, { search: [REFUSED] });
  });
});

describe('Text rule › accepted text', () => {
  test('mixed scripts, RTL and zero-width characters are names like any other (REST PUT and update_group)', async () => {
    const { api, key } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'Plain' })).body.data;
    const put = await api.put(`/groups/${group.id}`, { name: MIXED });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.data.name, MIXED);
    const call = await mcpClient(s.url, key).call('update_group', { group_id: group.id, name: `${MIXED} 2` });
    assert.equal(call.isError, false, JSON.stringify(call.body));
    assert.equal(call.body.data.name, `${MIXED} 2`);
  });

  test('text is stored in NFC: "é" typed as e + combining accent is found by the precomposed letter', async () => {
    const { api } = await s.restAccount();
    const made = await api.post('/subscribers', { email: 'rene@example.com', first_name: 'Rene\u0301' });
    assert.equal(made.status, 201);
    assert.equal(made.body.data.first_name, 'Ren\u00e9');
    const found = await api.get(`/subscribers?search=${encodeURIComponent('Ren\u00e9')}`);
    assert.deepEqual(
      found.body.data.subscribers.map((x: { email: string }) => x.email),
      ['rene@example.com'],
    );
  });

  test("a provider's bounce report with NUL in its address is kept, not refused (the provider would retry forever)", async () => {
    const { accountId } = await s.restAccount();
    const secret = await bounceSecretOf(s.db, accountId);
    const res = await client(s.url).post(`/hooks/bounces/generic/${secret}`, [
      { email: `ghost${NUL}@example.com`, type: 'hard', detail: `550 \u0001 unknown` },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.unknown, 1);
  });
});

describe('Storage errors › what input causes the database to refuse is a domain error', () => {
  const refusal = async (query: ReturnType<typeof sql>) => {
    try {
      await query.execute(s.db);
    } catch (err) {
      return fromStorageError(err);
    }
    assert.fail('the statement should have failed');
  };

  test('bad text representation, numbers out of range, bad dates → Validation', async () => {
    for (const q of [sql`select 'not-a-uuid'::uuid`, sql`select 2147483648::int4`, sql`select '12345'::timestamptz`]) {
      const err = await refusal(q);
      assert.ok(err instanceof Validation, String(err));
    }
  });

  test('a value too long for its column names the column when the database knows it; a unique key taken → Conflict', async () => {
    const { accountId } = await s.restAccount();
    await sql`insert into groups (account_id, name) values (${accountId}, 'Twice')`.execute(s.db);
    const taken = await refusal(sql`insert into groups (account_id, name) values (${accountId}, 'Twice')`);
    assert.ok(taken instanceof Conflict);
    const missing = await refusal(sql`insert into groups (account_id, name) values (${accountId}, null)`);
    assert.ok(missing instanceof Validation);
    assert.deepEqual(missing.fields, { name: ['Is required'] });
  });

  test('anything else (a lost table, a bug) is not the input’s fault and stays unmapped', async () => {
    assert.equal(await refusal(sql`select * from no_such_table`), undefined);
    assert.equal(fromStorageError(new Error('boom')), undefined);
  });
});
