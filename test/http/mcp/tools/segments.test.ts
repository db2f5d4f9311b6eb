// The segment tools (spec scopes: list_segments, get_subscribers_in_segment = subscribers:read;
// update_segment, delete_segment = subscribers:write; "Segment"): happy path, not found,
// validation, missing scope and another account's id for each, over plain JSON-RPC tools/call.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { forbidden, mcpAccount, mcpClient } from '../client.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';
const notFound = { error: 'Segment not found' };

const account = (scopes = ['*']) => mcpAccount(s, { scopes });
type Account = Awaited<ReturnType<typeof account>>;

async function segment(a: Account, name: string, filter: unknown) {
  const res = await a.api.post('/segments', { name, filter });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}
const emailEndsWith = (suffix: string) => ({
  match: 'all',
  rules: [{ field: 'email', operator: 'ends_with', value: suffix }],
});

describe('list_segments', () => {
  test('lists segments with subscriber_count, newest first, with meta {current_page, last_page, per_page, total}', async () => {
    const a = await account();
    for (const email of ['a@x.co', 'b@x.co', 'c@y.co']) await a.mcp.call('add_subscriber', { email });
    await segment(a, 'X', emailEndsWith('@x.co'));
    await segment(a, 'Y', emailEndsWith('@y.co'));
    const r = await a.mcp.call('list_segments', {});
    assert.equal(r.body.success, true);
    assert.deepEqual(
      r.body.data.map((x: any) => [x.name, x.subscriber_count]),
      [
        ['Y', 1],
        ['X', 2],
      ],
    );
    assert.deepEqual(Object.keys(r.body.data[0]).sort(), [
      'created_at',
      'filter',
      'id',
      'name',
      'subscriber_count',
      'updated_at',
    ]);
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 2 });
    const paged = await a.mcp.call('list_segments', { page: 2, per_page: 1 });
    assert.deepEqual(
      paged.body.data.map((x: any) => x.name),
      ['X'],
    );
    assert.deepEqual(paged.body.meta, { current_page: 2, last_page: 2, per_page: 1, total: 2 });
    assert.equal((await a.mcp.call('list_segments', { per_page: 1000 })).body.meta.per_page, 100);
  });

  test('validation: page 0 → -32602; scope subscribers:read; another account sees none of them', async () => {
    const a = await account();
    await segment(a, 'Mine', emailEndsWith('@x.co'));
    assert.equal((await a.mcp.call('list_segments', { page: 0 })).error?.code, -32602);
    const other = await account(['subscribers:read']);
    assert.deepEqual((await other.mcp.call('list_segments', {})).body.data, []);
    const noScope = await account(['groups:*']);
    assert.deepEqual((await noScope.mcp.call('list_segments', {})).body, forbidden('subscribers:read'));
  });
});

describe('get_subscribers_in_segment', () => {
  test('lists the subscribers the filter matches now, with meta; follows later changes', async () => {
    const a = await account();
    await a.mcp.call('add_subscriber', { email: 'a@x.co' });
    await a.mcp.call('add_subscriber', { email: 'b@y.co' });
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const r = await a.mcp.call('get_subscribers_in_segment', { segment_id: seg.id });
    assert.deepEqual(
      r.body.data.map((x: any) => x.email),
      ['a@x.co'],
    );
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 1 });
    await a.mcp.call('add_subscriber', { email: 'c@x.co' });
    assert.equal((await a.mcp.call('get_subscribers_in_segment', { segment_id: seg.id })).body.meta.total, 2);
  });

  test("not found, another account's id, bad id (-32602), missing scope", async () => {
    const a = await account();
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const b = await account();
    assert.deepEqual((await b.mcp.call('get_subscribers_in_segment', { segment_id: seg.id })).body, notFound);
    assert.deepEqual((await a.mcp.call('get_subscribers_in_segment', { segment_id: MISSING })).body, notFound);
    assert.equal(
      (await a.mcp.call('get_subscribers_in_segment', { segment_id: 'nope' })).error?.message,
      'segment_id: segment_id must be a UUID',
    );
    assert.equal((await a.mcp.call('get_subscribers_in_segment', {})).error?.code, -32602);
    const writer = mcpClient(s.url, (await s.newKey(a.accountId, ['subscribers:write'])).key);
    assert.deepEqual(
      (await writer.call('get_subscribers_in_segment', { segment_id: seg.id })).body,
      forbidden('subscribers:read'),
    );
  });
});

describe('update_segment', () => {
  test('renames, replaces the filter, and returns the new subscriber_count', async () => {
    const a = await account();
    await a.mcp.call('add_subscriber', { email: 'a@x.co', first_name: 'Ada' });
    await a.mcp.call('add_subscriber', { email: 'b@x.co', first_name: 'Bob' });
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const renamed = await a.mcp.call('update_segment', { segment_id: seg.id, name: 'Everyone at x' });
    assert.equal(renamed.body.data.name, 'Everyone at x');
    assert.equal(renamed.body.data.subscriber_count, 2);
    const filter = {
      match: 'any',
      rules: [
        { field: 'first_name', operator: 'eq', value: 'ada' },
        { match: 'all', rules: [{ field: 'first_name', operator: 'is_not_set' }] },
      ],
    };
    const refiltered = await a.mcp.call('update_segment', { segment_id: seg.id, filter });
    assert.equal(refiltered.body.success, true, JSON.stringify(refiltered.body));
    assert.deepEqual(refiltered.body.data.filter, filter);
    assert.equal(refiltered.body.data.subscriber_count, 1);
    const row = await s.db
      .selectFrom('segments')
      .select(['name', 'filter'])
      .where('id', '=', seg.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Everyone at x', filter });
  });

  test('validation: a rule the field does not take → -32602 naming the rule; an undefined custom field (account-specific) → tool error', async () => {
    const a = await account();
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const bad = await a.mcp.call('update_segment', {
      segment_id: seg.id,
      filter: { match: 'all', rules: [{ field: 'email', operator: 'gt', value: 'a' }] },
    });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /filter\.rules\.0\.operator: Operator gt is not valid for field email/);
    const unknownField = await a.mcp.call('update_segment', {
      segment_id: seg.id,
      filter: { match: 'all', rules: [{ field: 'custom_fields.plan', operator: 'eq', value: 'pro' }] },
    });
    assert.deepEqual(unknownField.body, {
      error: 'filter.rules.0.field: Unknown custom field: plan',
      data: { 'filter.rules.0.field': ['Unknown custom field: plan'] },
    });
    assert.equal(
      (await a.mcp.call('update_segment', { segment_id: seg.id, filter: { match: 'all', rules: [] } })).error?.code,
      -32602,
    );
    assert.equal((await a.mcp.call('update_segment', { segment_id: seg.id })).isError, true);
  });

  test("not found, another account's id, missing scope (subscribers:write)", async () => {
    const a = await account();
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const b = await account();
    assert.deepEqual((await b.mcp.call('update_segment', { segment_id: seg.id, name: 'Stolen' })).body, notFound);
    assert.deepEqual((await a.mcp.call('update_segment', { segment_id: MISSING, name: 'Y' })).body, notFound);
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['subscribers:read'])).key);
    assert.deepEqual(
      (await reader.call('update_segment', { segment_id: seg.id, name: 'Y' })).body,
      forbidden('subscribers:write'),
    );
    assert.equal(
      (await s.db.selectFrom('segments').select('name').where('id', '=', seg.id).executeTakeFirstOrThrow()).name,
      'X',
    );
  });
});

describe('delete_segment', () => {
  test('deletes the segment (subscribers untouched); a second delete → Segment not found', async () => {
    const a = await account();
    await a.mcp.call('add_subscriber', { email: 'a@x.co' });
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const r = await a.mcp.call('delete_segment', { segment_id: seg.id });
    assert.deepEqual(r.body, { success: true, data: { id: seg.id, deleted: true } });
    assert.equal(await s.db.selectFrom('segments').select('id').where('id', '=', seg.id).executeTakeFirst(), undefined);
    assert.equal((await a.api.get('/subscribers')).body.data.pagination.total_count, 1);
    assert.deepEqual((await a.mcp.call('delete_segment', { segment_id: seg.id })).body, notFound);
  });

  test("another account's id → not found (and it survives), bad id → -32602, missing scope", async () => {
    const a = await account();
    const seg = await segment(a, 'X', emailEndsWith('@x.co'));
    const b = await account();
    assert.deepEqual((await b.mcp.call('delete_segment', { segment_id: seg.id })).body, notFound);
    assert.equal((await a.mcp.call('delete_segment', { segment_id: 42 })).error?.code, -32602);
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['subscribers:read'])).key);
    assert.deepEqual(
      (await reader.call('delete_segment', { segment_id: seg.id })).body,
      forbidden('subscribers:write'),
    );
    assert.ok(await s.db.selectFrom('segments').select('id').where('id', '=', seg.id).executeTakeFirst());
  });
});
