// The form tools (spec scopes forms:read: list_forms, get_form, get_form_subscribers; forms:write:
// update_form, delete_form; "Form"): happy path, not found, validation, missing scope and
// another account's id for each, over plain JSON-RPC tools/call.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { client, startServer } from '../../../support/server.ts';
import { forbidden, mcpAccount, mcpClient } from '../client.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';
const notFound = { error: 'Form not found' };

const account = (scopes = ['*']) => mcpAccount(s, { scopes });
type Account = Awaited<ReturnType<typeof account>>;

async function form(a: Account, body: Record<string, unknown> = {}) {
  const res = await a.api.post('/forms', { name: 'Newsletter', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}
const signup = (id: string, email: string) => client(s.url).post(`/f/${id}`, { email }, { accept: 'application/json' });

describe('list_forms', () => {
  test('lists forms newest first with stats and meta; per_page is clamped', async () => {
    const a = await account();
    const first = await form(a, { name: 'First' });
    await form(a, { name: 'Second', type: 'popup' });
    await signup(first.id, 'a@example.com');
    const r = await a.mcp.call('list_forms', {});
    assert.equal(r.body.success, true);
    assert.deepEqual(
      r.body.data.map((f: any) => [f.name, f.type, f.stats.submissions]),
      [
        ['Second', 'popup', 0],
        ['First', 'hosted', 1],
      ],
    );
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 2 });
    assert.deepEqual(
      (await a.mcp.call('list_forms', { page: 2, per_page: 1 })).body.data.map((f: any) => f.name),
      ['First'],
    );
    assert.equal((await a.mcp.call('list_forms', { per_page: 500 })).body.meta.per_page, 100);
  });

  test('validation (-32602), scope forms:read, and no forms of another account', async () => {
    const a = await account();
    await form(a);
    assert.equal((await a.mcp.call('list_forms', { per_page: 0 })).error?.code, -32602);
    const other = await account(['forms:read']);
    assert.deepEqual((await other.mcp.call('list_forms', {})).body.data, []);
    const noScope = await account(['subscribers:*']);
    assert.deepEqual((await noScope.mcp.call('list_forms', {})).body, forbidden('forms:read'));
  });
});

describe('get_form', () => {
  test('returns the form with url and an embed snippet that posts to the public endpoint; popup comes in a <dialog>', async () => {
    const a = await account();
    const f = await form(a, { fields: [{ key: 'first_name', required: true }] });
    const r = await a.mcp.call('get_form', { form_id: f.id });
    assert.equal(r.body.data.id, f.id);
    assert.equal(r.body.data.url, `${s.config.publicUrl}/f/${f.id}`);
    assert.ok(r.body.data.embed.includes(`action="${s.config.publicUrl}/f/${f.id}"`));
    assert.match(r.body.data.embed, /name="first_name" required/);
    assert.deepEqual(r.body.data.stats, { views: 0, submissions: 0, confirmations: 0 });
    const popup = await form(a, { name: 'Pop', type: 'popup' });
    assert.match(
      (await a.mcp.call('get_form', { form_id: popup.id })).body.data.embed,
      /<dialog id="mg-[0-9a-f]{8}-dialog"/,
    );
  });

  test("not found, another account's id, bad id (-32602), missing scope", async () => {
    const a = await account();
    const f = await form(a);
    const b = await account();
    assert.deepEqual((await b.mcp.call('get_form', { form_id: f.id })).body, notFound);
    assert.deepEqual((await a.mcp.call('get_form', { form_id: MISSING })).body, notFound);
    assert.equal((await a.mcp.call('get_form', { form_id: 'abc' })).error?.message, 'form_id: form_id must be a UUID');
    const writer = mcpClient(s.url, (await s.newKey(a.accountId, ['forms:write'])).key);
    assert.deepEqual((await writer.call('get_form', { form_id: f.id })).body, forbidden('forms:read'));
  });
});

describe('get_form_subscribers', () => {
  test('lists subscribers who signed up through the form, latest first, with signed_up_at and meta', async () => {
    const a = await account();
    const f = await form(a);
    const other = await form(a, { name: 'Other' });
    await signup(f.id, 'a@example.com');
    await signup(f.id, 'b@example.com');
    await signup(other.id, 'c@example.com');
    const r = await a.mcp.call('get_form_subscribers', { form_id: f.id });
    assert.deepEqual(
      r.body.data.map((x: any) => x.email),
      ['b@example.com', 'a@example.com'],
    );
    assert.deepEqual(Object.keys(r.body.data[0]).sort(), [
      'created_at',
      'email',
      'first_name',
      'id',
      'last_name',
      'signed_up_at',
      'status',
    ]);
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 2 });
  });

  test('a double opt-in signup appears only after confirmation', async () => {
    const a = await account();
    const f = await form(a, { double_opt_in: true });
    await signup(f.id, 'd@example.com');
    assert.equal((await a.mcp.call('get_form_subscribers', { form_id: f.id })).body.meta.total, 0);
  });

  test("not found, another account's id, missing scope", async () => {
    const a = await account();
    const f = await form(a);
    await signup(f.id, 'a@example.com');
    const b = await account();
    assert.deepEqual((await b.mcp.call('get_form_subscribers', { form_id: f.id })).body, notFound);
    assert.deepEqual((await a.mcp.call('get_form_subscribers', { form_id: MISSING })).body, notFound);
    assert.equal((await a.mcp.call('get_form_subscribers', {})).error?.code, -32602);
    const subs = mcpClient(s.url, (await s.newKey(a.accountId, ['subscribers:read'])).key);
    assert.deepEqual((await subs.call('get_form_subscribers', { form_id: f.id })).body, forbidden('forms:read'));
  });
});

describe('update_form', () => {
  test('changes only the given settings; fields are resolved (email kept first and required); deactivation takes the page offline', async () => {
    const a = await account();
    const g = (await a.mcp.call('create_group', { name: 'G' })).body.data;
    const f = await form(a);
    const r = await a.mcp.call('update_form', {
      form_id: f.id,
      name: 'Renamed',
      group_ids: [g.id],
      double_opt_in: true,
      fields: [{ key: 'last_name', label: 'Surname' }],
      success_message: 'Merci',
    });
    assert.equal(r.body.success, true, JSON.stringify(r.body));
    assert.equal(r.body.data.name, 'Renamed');
    assert.equal(r.body.data.type, 'hosted');
    assert.deepEqual(r.body.data.group_ids, [g.id]);
    assert.deepEqual(r.body.data.fields, [
      { key: 'email', label: 'Email', required: true },
      { key: 'last_name', label: 'Surname', required: false },
    ]);
    assert.equal(r.body.data.success_message, 'Merci');
    assert.equal((await fetch(`${s.url}/f/${f.id}`)).status, 200);
    assert.equal((await a.mcp.call('update_form', { form_id: f.id, active: false })).body.data.active, false);
    assert.equal((await fetch(`${s.url}/f/${f.id}`)).status, 404);
    const row = await s.db
      .selectFrom('forms')
      .select(['name', 'active', 'double_opt_in'])
      .where('id', '=', f.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Renamed', active: false, double_opt_in: true });
  });

  test('validation: bad type / redirect_url → -32602; unknown field key or foreign group → tool error with the field', async () => {
    const a = await account();
    const f = await form(a);
    assert.equal(
      (await a.mcp.call('update_form', { form_id: f.id, type: 'banner' })).error?.message,
      'type: type must be one of: hosted, embedded, popup',
    );
    assert.equal((await a.mcp.call('update_form', { form_id: f.id, redirect_url: 'ftp://x' })).error?.code, -32602);
    const unknownField = await a.mcp.call('update_form', { form_id: f.id, fields: [{ key: 'company' }] });
    assert.equal(unknownField.isError, true);
    assert.equal(
      unknownField.body.error,
      'fields.0.key: Unknown field: company (use email, first_name, last_name, phone or a custom field key)',
    );
    const other = await account();
    const theirs = (await other.mcp.call('create_group', { name: 'Theirs' })).body.data;
    assert.equal(
      (await a.mcp.call('update_form', { form_id: f.id, group_ids: [theirs.id] })).body.error,
      `group_ids: Group not found: ${theirs.id}`,
    );
  });

  test("not found, another account's id, missing scope (forms:write)", async () => {
    const a = await account();
    const f = await form(a);
    const b = await account();
    assert.deepEqual((await b.mcp.call('update_form', { form_id: f.id, name: 'Mine now' })).body, notFound);
    assert.deepEqual((await a.mcp.call('update_form', { form_id: MISSING, name: 'X' })).body, notFound);
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['forms:read'])).key);
    assert.deepEqual((await reader.call('update_form', { form_id: f.id, name: 'X' })).body, forbidden('forms:write'));
    assert.equal(
      (await s.db.selectFrom('forms').select('name').where('id', '=', f.id).executeTakeFirstOrThrow()).name,
      'Newsletter',
    );
  });
});

describe('delete_form', () => {
  test('deletes the form; its subscribers stay; a second delete → Form not found', async () => {
    const a = await account();
    const f = await form(a);
    await signup(f.id, 'a@example.com');
    assert.deepEqual((await a.mcp.call('delete_form', { form_id: f.id })).body, {
      success: true,
      data: { id: f.id, deleted: true },
    });
    assert.equal(await s.db.selectFrom('forms').select('id').where('id', '=', f.id).executeTakeFirst(), undefined);
    assert.equal((await a.api.get('/subscribers/stats')).body.data.total, 1);
    assert.deepEqual((await a.mcp.call('delete_form', { form_id: f.id })).body, notFound);
  });

  test("another account's id → not found (form survives), bad id → -32602, missing scope", async () => {
    const a = await account();
    const f = await form(a);
    const b = await account();
    assert.deepEqual((await b.mcp.call('delete_form', { form_id: f.id })).body, notFound);
    assert.equal((await a.mcp.call('delete_form', { form_id: '' })).error?.code, -32602);
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['forms:read'])).key);
    assert.deepEqual((await reader.call('delete_form', { form_id: f.id })).body, forbidden('forms:write'));
    assert.ok(await s.db.selectFrom('forms').select('id').where('id', '=', f.id).executeTakeFirst());
  });
});
