// The group tools (spec scopes groups:read / groups:write; "Group"): happy path, not found,
// validation, missing scope and another account's id for each; counts are checked against real memberships.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { forbidden, mcpAccount, mcpClient } from '../client.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';

const account = (scopes = ['*']) => mcpAccount(s, { scopes });

async function group(m: ReturnType<typeof mcpClient>, name: string) {
  const r = await m.call('create_group', { name });
  assert.equal(r.body?.success, true, JSON.stringify(r.error ?? r.body));
  return r.body.data;
}

describe('create_group', () => {
  test('creates {id, name, subscriber_count 0, active_count 0, created_at, updated_at}; the name is trimmed', async () => {
    const { mcp, accountId } = await account();
    const g = await group(mcp, '  Newsletter  ');
    assert.deepEqual(Object.keys(g).sort(), [
      'active_count',
      'created_at',
      'id',
      'name',
      'subscriber_count',
      'updated_at',
    ]);
    assert.equal(g.name, 'Newsletter');
    assert.equal(g.subscriber_count, 0);
    const row = await s.db.selectFrom('groups').selectAll().where('id', '=', g.id).executeTakeFirstOrThrow();
    assert.equal(row.account_id, accountId);
  });

  test('a name already used in the account (any case) → tool error; the same name in another account is fine', async () => {
    const { mcp } = await account();
    await group(mcp, 'VIP');
    assert.deepEqual((await mcp.call('create_group', { name: 'vip' })).body, {
      error: 'A group with this name already exists',
    });
    const other = await account();
    await group(other.mcp, 'VIP');
  });

  test('validation: missing or blank name → -32602 "Name is required"; scope groups:write', async () => {
    const { mcp } = await account(['groups:read']);
    assert.equal((await mcp.call('create_group', {})).error?.message, 'name: Name is required');
    assert.equal((await mcp.call('create_group', { name: '   ' })).error?.message, 'name: Name is required');
    assert.equal((await mcp.call('create_group', { name: 'x'.repeat(256) })).error?.code, -32602);
    assert.deepEqual((await mcp.call('create_group', { name: 'Ok' })).body, forbidden('groups:write'));
  });
});

describe('list_groups', () => {
  test('sorted by name with subscriber_count and active_count; search; pagination meta', async () => {
    const { mcp } = await account();
    const a = await group(mcp, 'Alpha');
    const b = await group(mcp, 'beta');
    await group(mcp, 'Gamma');
    for (const [email, status] of [
      ['1@x.co', 'active'],
      ['2@x.co', 'unsubscribed'],
      ['3@x.co', 'active'],
    ] as const) {
      await mcp.call('add_subscriber', { email, status, groups: [a.id] });
    }
    await mcp.call('add_subscriber', { email: '1@x.co', groups: [b.id] });
    const r = await mcp.call('list_groups', {});
    assert.deepEqual(
      r.body.data.map((g: any) => [g.name, g.subscriber_count, g.active_count]),
      [
        ['Alpha', 3, 2],
        ['beta', 1, 1],
        ['Gamma', 0, 0],
      ],
    );
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 3 });
    const search = await mcp.call('list_groups', { search: 'ET' });
    assert.deepEqual(
      search.body.data.map((g: any) => g.name),
      ['beta'],
    );
    const paged = await mcp.call('list_groups', { per_page: 2, page: 2 });
    assert.deepEqual(
      paged.body.data.map((g: any) => g.name),
      ['Gamma'],
    );
    assert.deepEqual(paged.body.meta, { current_page: 2, last_page: 2, per_page: 2, total: 3 });
  });

  test("another account's groups never show; validation; scope groups:read", async () => {
    const other = await account();
    await group(other.mcp, 'Theirs');
    const { mcp } = await account(['groups:read']);
    assert.deepEqual((await mcp.call('list_groups', {})).body.data, []);
    assert.equal((await mcp.call('list_groups', { page: -1 })).error?.code, -32602);
    const sub = await account(['subscribers:*']);
    assert.deepEqual((await sub.mcp.call('list_groups', {})).body, forbidden('groups:read'));
  });
});

describe('get_group_subscribers', () => {
  test('members only, newest first, with status filter and meta', async () => {
    const { mcp } = await account();
    const g = await group(mcp, 'G');
    await mcp.call('add_subscriber', { email: 'in1@x.co', groups: [g.id] });
    await mcp.call('add_subscriber', { email: 'out@x.co' });
    await mcp.call('add_subscriber', { email: 'in2@x.co', status: 'unsubscribed', groups: [g.id] });
    const r = await mcp.call('get_group_subscribers', { group_id: g.id });
    assert.deepEqual(
      r.body.data.map((d: any) => d.email),
      ['in2@x.co', 'in1@x.co'],
    );
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 2 });
    const active = await mcp.call('get_group_subscribers', { group_id: g.id, status: 'active' });
    assert.deepEqual(
      active.body.data.map((d: any) => d.email),
      ['in1@x.co'],
    );
  });

  test("not found: unknown and another account's group; validation; scope", async () => {
    const other = await account();
    const theirs = await group(other.mcp, 'Theirs');
    await other.mcp.call('add_subscriber', { email: 'secret@x.co', groups: [theirs.id] });
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('get_group_subscribers', { group_id: MISSING })).body, {
      error: 'Group not found',
    });
    assert.deepEqual((await mcp.call('get_group_subscribers', { group_id: theirs.id })).body, {
      error: 'Group not found',
    });
    assert.equal((await mcp.call('get_group_subscribers', {})).error?.message, 'group_id: group_id must be a UUID');
    const w = await account(['groups:write']);
    assert.deepEqual((await w.mcp.call('get_group_subscribers', { group_id: MISSING })).body, forbidden('groups:read'));
  });
});

describe('update_group', () => {
  test('renames; members are unchanged; renaming to its own name in another case is allowed', async () => {
    const { mcp } = await account();
    const g = await group(mcp, 'Old');
    await mcp.call('add_subscriber', { email: 'a@x.co', groups: [g.id] });
    const r = await mcp.call('update_group', { group_id: g.id, name: 'New' });
    assert.equal(r.body.data.name, 'New');
    assert.equal(r.body.data.subscriber_count, 1);
    assert.equal((await mcp.call('update_group', { group_id: g.id, name: 'NEW' })).body.data.name, 'NEW');
  });

  test('the name of another group → tool error; not found; another account; validation; scope', async () => {
    const other = await account();
    const theirs = await group(other.mcp, 'Theirs');
    const { mcp } = await account();
    await group(mcp, 'Taken');
    const g = await group(mcp, 'Mine');
    assert.deepEqual((await mcp.call('update_group', { group_id: g.id, name: 'taken' })).body, {
      error: 'A group with this name already exists',
    });
    assert.deepEqual((await mcp.call('update_group', { group_id: MISSING, name: 'X' })).body, {
      error: 'Group not found',
    });
    assert.deepEqual((await mcp.call('update_group', { group_id: theirs.id, name: 'X' })).body, {
      error: 'Group not found',
    });
    const row = await s.db.selectFrom('groups').select('name').where('id', '=', theirs.id).executeTakeFirstOrThrow();
    assert.equal(row.name, 'Theirs');
    assert.equal((await mcp.call('update_group', { group_id: g.id })).error?.code, -32602);
    const ro = await account(['groups:read']);
    assert.deepEqual(
      (await ro.mcp.call('update_group', { group_id: g.id, name: 'Y' })).body,
      forbidden('groups:write'),
    );
  });
});

describe('delete_group', () => {
  test('deletes the group and its memberships; the subscribers stay', async () => {
    const { mcp } = await account();
    const g = await group(mcp, 'Doomed');
    const sub = (await mcp.call('add_subscriber', { email: 'stay@x.co', groups: [g.id] })).body.data;
    assert.deepEqual((await mcp.call('delete_group', { group_id: g.id })).body, {
      success: true,
      data: { id: g.id, deleted: true },
    });
    assert.equal(await s.db.selectFrom('groups').select('id').where('id', '=', g.id).executeTakeFirst(), undefined);
    assert.equal(
      (await s.db.selectFrom('subscriber_groups').select('subscriber_id').where('group_id', '=', g.id).execute())
        .length,
      0,
    );
    assert.equal((await mcp.call('get_subscriber', { subscriber_id: sub.id })).body.data.email, 'stay@x.co');
    assert.deepEqual((await mcp.call('delete_group', { group_id: g.id })).body, { error: 'Group not found' });
  });

  test("another account's group → not found and kept; validation; scope", async () => {
    const other = await account();
    const theirs = await group(other.mcp, 'Theirs');
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('delete_group', { group_id: theirs.id })).body, { error: 'Group not found' });
    assert.ok(await s.db.selectFrom('groups').select('id').where('id', '=', theirs.id).executeTakeFirst());
    assert.equal((await mcp.call('delete_group', { group_id: 'nope' })).error?.code, -32602);
    const ro = await account(['groups:read', 'subscribers:*']);
    assert.deepEqual((await ro.mcp.call('delete_group', { group_id: theirs.id })).body, forbidden('groups:write'));
  });
});
