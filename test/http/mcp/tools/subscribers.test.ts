// The subscriber tools (spec scopes subscribers:read / subscribers:write; "MCP add_subscriber",
// "Tool conventions"): for each tool the happy path, not found, a validation error, the missing scope,
// and another account's id reading as not found. Rows are checked in the database, not only the answer.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import * as fields from '../../../../src/domain/subscribers/fields.ts';
import * as suppressions from '../../../../src/domain/subscribers/suppressions.ts';
import { startServer } from '../../../support/server.ts';
import { forbidden, mcpAccount, mcpClient } from '../client.ts';

const s = await startServer({ after });
const MISSING = '00000000-0000-4000-8000-000000000000';

const account = (scopes = ['*'], limit?: number) => mcpAccount(s, { scopes, limit });

async function add(m: ReturnType<typeof mcpClient>, args: Record<string, unknown>) {
  const r = await m.call('add_subscriber', args);
  assert.equal(r.body?.success, true, JSON.stringify(r.error ?? r.body));
  return r.body.data;
}

describe('add_subscriber', () => {
  test('new email → created active, created=true, row written with source mcp and a subscriber.created event', async () => {
    const { mcp, accountId } = await account();
    const r = await mcp.call('add_subscriber', { email: ' Ada@Example.com ', first_name: 'Ada', phone: '+441234' });
    assert.equal(r.isError, false);
    const d = r.body.data;
    assert.equal(d.email, 'Ada@Example.com');
    assert.equal(d.status, 'active');
    assert.equal(d.created, true);
    const row = await s.db.selectFrom('subscribers').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    assert.equal(row.account_id, accountId);
    assert.equal(row.source, 'mcp');
    const ev = await s.db.selectFrom('events').select('type').where('subscriber_id', '=', d.id).execute();
    assert.deepEqual(
      ev.map((e) => e.type),
      ['subscriber.created'],
    );
  });

  test('existing email (any case) → only given fields change, custom_fields merge, groups are added, created=false', async () => {
    const { mcp, accountId } = await account();
    await fields.create(s.db, accountId, { key: 'company', type: 'text' });
    await fields.create(s.db, accountId, { key: 'age', type: 'number' });
    const g1 = (await mcp.call('create_group', { name: 'One' })).body.data;
    const g2 = (await mcp.call('create_group', { name: 'Two' })).body.data;
    const first = await add(mcp, {
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      custom_fields: { company: 'Acme' },
      groups: [g1.id],
    });
    const again = await add(mcp, {
      email: 'ADA@example.com',
      first_name: 'Augusta',
      custom_fields: { age: '36' },
      groups: [g2.id],
    });
    assert.equal(again.id, first.id);
    assert.equal(again.created, false);
    assert.equal(again.first_name, 'Augusta');
    assert.equal(again.last_name, 'Lovelace');
    assert.deepEqual(again.custom_fields, { company: 'Acme', age: 36 });
    const got = (await mcp.call('get_subscriber', { subscriber_id: first.id })).body.data;
    assert.deepEqual(
      got.groups.map((g: { name: string }) => g.name),
      ['One', 'Two'],
    );
  });

  test('status unsubscribed on create and on update', async () => {
    const { mcp } = await account();
    assert.equal((await add(mcp, { email: 'u@example.com', status: 'unsubscribed' })).status, 'unsubscribed');
    assert.equal((await add(mcp, { email: 'u@example.com', status: 'active' })).status, 'active');
  });

  test('validation: status bounced is -32602; an undefined custom field is a tool error naming it', async () => {
    const { mcp } = await account();
    assert.equal((await mcp.call('add_subscriber', { email: 'a@example.com', status: 'bounced' })).error?.code, -32602);
    const r = await mcp.call('add_subscriber', { email: 'a@example.com', custom_fields: { shoe_size: 42 } });
    assert.equal(r.isError, true);
    assert.equal(r.body.error, 'custom_fields.shoe_size: Unknown custom field: shoe_size');
    assert.deepEqual(r.body.data, { 'custom_fields.shoe_size': ['Unknown custom field: shoe_size'] });
  });

  test('plan limit: a new subscriber over the limit → tool error "Subscriber limit reached" with current_count/limit; existing still updates', async () => {
    const { mcp } = await account(['*'], 1);
    await add(mcp, { email: 'one@example.com' });
    const r = await mcp.call('add_subscriber', { email: 'two@example.com' });
    assert.equal(r.isError, true);
    assert.deepEqual(r.body, { error: 'Subscriber limit reached', data: { current_count: 1, limit: 1 } });
    assert.equal((await add(mcp, { email: 'one@example.com', first_name: 'Uno' })).first_name, 'Uno');
  });

  test("another account's group id in groups → tool error, nothing created", async () => {
    const other = await account();
    const g = (await other.mcp.call('create_group', { name: 'Theirs' })).body.data;
    const { mcp, accountId } = await account();
    const r = await mcp.call('add_subscriber', { email: 'a@example.com', groups: [g.id] });
    assert.equal(r.isError, true);
    assert.match(r.body.error, /Group not found/);
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      0,
    );
  });

  test('Forbidden without subscribers:write', async () => {
    const { mcp } = await account(['subscribers:read', 'groups:*']);
    assert.deepEqual(
      (await mcp.call('add_subscriber', { email: 'a@example.com' })).body,
      forbidden('subscribers:write'),
    );
  });
});

describe('get_subscriber', () => {
  test('by subscriber_id and by email (case-insensitive): groups, custom_fields, notes', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'VIP' })).body.data;
    const sub = await add(mcp, { email: 'Grace@Example.com', first_name: 'Grace', groups: [g.id] });
    for (const args of [{ subscriber_id: sub.id }, { email: 'grace@EXAMPLE.com' }]) {
      const r = await mcp.call('get_subscriber', args);
      assert.deepEqual(Object.keys(r.body.data).sort(), [
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
      ]);
      assert.equal(r.body.data.id, sub.id);
      assert.deepEqual(r.body.data.groups, [{ id: g.id, name: 'VIP' }]);
      assert.deepEqual(r.body.data.notes, []);
    }
  });

  test('not found: unknown id, unknown email → "Subscriber not found"', async () => {
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('get_subscriber', { subscriber_id: MISSING })).body, {
      error: 'Subscriber not found',
    });
    assert.deepEqual((await mcp.call('get_subscriber', { email: 'nobody@example.com' })).body, {
      error: 'Subscriber not found',
    });
  });

  test("another account's subscriber (by id or email) → not found", async () => {
    const other = await account();
    const theirs = await add(other.mcp, { email: 'theirs@example.com' });
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('get_subscriber', { subscriber_id: theirs.id })).body, {
      error: 'Subscriber not found',
    });
    assert.deepEqual((await mcp.call('get_subscriber', { email: 'theirs@example.com' })).body, {
      error: 'Subscriber not found',
    });
  });

  test('validation: neither subscriber_id nor email → -32602', async () => {
    const { mcp } = await account();
    const r = await mcp.call('get_subscriber', {});
    assert.deepEqual(r.error && { code: r.error.code, message: r.error.message }, {
      code: -32602,
      message: 'subscriber_id or email is required',
    });
  });

  test('Forbidden without subscribers:read', async () => {
    const { mcp } = await account(['groups:*']);
    assert.deepEqual(
      (await mcp.call('get_subscriber', { subscriber_id: MISSING })).body,
      forbidden('subscribers:read'),
    );
  });
});

describe('list_subscribers', () => {
  test('page/per_page (default 25) and meta {current_page, last_page, per_page, total}, newest first', async () => {
    const { mcp } = await account();
    for (let i = 0; i < 30; i++) await add(mcp, { email: `p${i}@example.com` });
    const first = await mcp.call('list_subscribers', {});
    assert.equal(first.body.data.length, 25);
    assert.deepEqual(first.body.meta, { current_page: 1, last_page: 2, per_page: 25, total: 30 });
    assert.equal(first.body.data[0].email, 'p29@example.com');
    assert.deepEqual(Object.keys(first.body.data[0]).sort(), [
      'created_at',
      'email',
      'first_name',
      'id',
      'last_name',
      'status',
    ]);
    const second = await mcp.call('list_subscribers', { page: 2, per_page: 25 });
    assert.equal(second.body.data.length, 5);
    assert.equal(second.body.meta.current_page, 2);
  });

  test('per_page above 100 is clamped to 100', async () => {
    const { mcp } = await account();
    const r = await mcp.call('list_subscribers', { per_page: 500 });
    assert.equal(r.body.meta.per_page, 100);
  });

  test('filters: status, search (email/first/last name, case-insensitive), group_id', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'G' })).body.data;
    await add(mcp, { email: 'alice@example.com', first_name: 'Alice', groups: [g.id] });
    await add(mcp, { email: 'bob@example.com', last_name: 'Alison', status: 'unsubscribed' });
    await add(mcp, { email: 'carol@example.com' });
    const emails = async (args: object) =>
      (await mcp.call('list_subscribers', args)).body.data.map((d: { email: string }) => d.email).sort();
    assert.deepEqual(await emails({ status: 'unsubscribed' }), ['bob@example.com']);
    assert.deepEqual(await emails({ search: 'ALI' }), ['alice@example.com', 'bob@example.com']);
    assert.deepEqual(await emails({ group_id: g.id }), ['alice@example.com']);
    assert.deepEqual(await emails({ group_id: MISSING }), []);
  });

  test('validation: page 0, per_page "ten", status "gone" → -32602 naming the field', async () => {
    const { mcp } = await account();
    assert.match((await mcp.call('list_subscribers', { page: 0 })).error!.message, /^page: /);
    assert.match((await mcp.call('list_subscribers', { per_page: 'ten' })).error!.message, /^per_page: /);
    assert.match((await mcp.call('list_subscribers', { status: 'gone' })).error!.message, /^status: /);
  });

  test("only the key's account: another account's subscribers and group never show", async () => {
    const other = await account();
    const g = (await other.mcp.call('create_group', { name: 'Theirs' })).body.data;
    await add(other.mcp, { email: 'theirs@example.com', groups: [g.id] });
    const { mcp } = await account();
    await add(mcp, { email: 'mine@example.com' });
    const all = await mcp.call('list_subscribers', {});
    assert.deepEqual(
      all.body.data.map((d: { email: string }) => d.email),
      ['mine@example.com'],
    );
    assert.equal((await mcp.call('list_subscribers', { group_id: g.id })).body.meta.total, 0);
  });

  test('Forbidden without subscribers:read', async () => {
    const { mcp } = await account(['subscribers:write']);
    assert.deepEqual((await mcp.call('list_subscribers', {})).body, forbidden('subscribers:read'));
  });
});

describe('get_subscriber_count', () => {
  test('totals per status; with status → {status, count}; other accounts are not counted', async () => {
    const other = await account();
    await add(other.mcp, { email: 'x@example.com' });
    const { mcp } = await account();
    await add(mcp, { email: 'a@example.com' });
    await add(mcp, { email: 'b@example.com' });
    await add(mcp, { email: 'c@example.com', status: 'unsubscribed' });
    assert.deepEqual((await mcp.call('get_subscriber_count', {})).body.data, {
      total: 3,
      active: 2,
      unsubscribed: 1,
      bounced: 0,
      complained: 0,
    });
    assert.deepEqual((await mcp.call('get_subscriber_count', { status: 'active' })).body.data, {
      status: 'active',
      count: 2,
    });
  });

  test('validation and scope', async () => {
    const { mcp } = await account(['groups:read']);
    assert.equal((await mcp.call('get_subscriber_count', { status: 'nope' })).error?.code, -32602);
    assert.deepEqual((await mcp.call('get_subscriber_count', {})).body, forbidden('subscribers:read'));
  });
});

describe('get_subscriber_activity (from the event log)', () => {
  test('newest first, paginated, filtered by type', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'G' })).body.data;
    const sub = await add(mcp, { email: 'act@example.com' });
    await mcp.call('update_subscriber', { subscriber_id: sub.id, first_name: 'Act' });
    await mcp.call('assign_subscriber_to_group', { subscriber_id: sub.id, group_id: g.id });
    await mcp.call('update_subscriber', { subscriber_id: sub.id, status: 'unsubscribed' });
    const all = await mcp.call('get_subscriber_activity', { subscriber_id: sub.id });
    assert.deepEqual(
      all.body.data.map((e: { type: string }) => e.type),
      [
        'subscriber.unsubscribed',
        'subscriber.updated',
        'subscriber.added_to_group',
        'subscriber.updated',
        'subscriber.created',
      ],
    );
    assert.deepEqual(all.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 5 });
    assert.deepEqual(all.body.data[2].data, {
      subscriber: { id: sub.id, email: 'act@example.com' },
      group: { id: g.id, name: 'G' },
    });
    const page2 = await mcp.call('get_subscriber_activity', { subscriber_id: sub.id, per_page: 2, page: 2 });
    assert.deepEqual(
      page2.body.data.map((e: { type: string }) => e.type),
      ['subscriber.added_to_group', 'subscriber.updated'],
    );
    assert.deepEqual(page2.body.meta, { current_page: 2, last_page: 3, per_page: 2, total: 5 });
    const updates = await mcp.call('get_subscriber_activity', { subscriber_id: sub.id, type: 'subscriber.updated' });
    assert.equal(updates.body.meta.total, 2);
  });

  test("not found, another account's subscriber, bad type, scope", async () => {
    const other = await account();
    const theirs = await add(other.mcp, { email: 't@example.com' });
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('get_subscriber_activity', { subscriber_id: MISSING })).body, {
      error: 'Subscriber not found',
    });
    assert.deepEqual((await mcp.call('get_subscriber_activity', { subscriber_id: theirs.id })).body, {
      error: 'Subscriber not found',
    });
    assert.equal(
      (await mcp.call('get_subscriber_activity', { subscriber_id: theirs.id, type: 'email.eaten' })).error?.code,
      -32602,
    );
    const ro = await account(['groups:read']);
    assert.deepEqual(
      (await ro.mcp.call('get_subscriber_activity', { subscriber_id: MISSING })).body,
      forbidden('subscribers:read'),
    );
  });
});

describe('update_subscriber (= the REST update)', () => {
  test('only sent fields change; custom_fields merge; group_ids replace all memberships', async () => {
    const { mcp, accountId } = await account();
    await fields.create(s.db, accountId, { key: 'company', type: 'text' });
    await fields.create(s.db, accountId, { key: 'vip', type: 'boolean' });
    const g1 = (await mcp.call('create_group', { name: 'One' })).body.data;
    const g2 = (await mcp.call('create_group', { name: 'Two' })).body.data;
    const sub = await add(mcp, {
      email: 'u@example.com',
      first_name: 'U',
      last_name: 'Ser',
      custom_fields: { company: 'Acme' },
      groups: [g1.id],
    });
    const r = await mcp.call('update_subscriber', {
      subscriber_id: sub.id,
      last_name: 'Changed',
      custom_fields: { vip: 'true' },
      group_ids: [g2.id],
    });
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.equal(r.body.data.first_name, 'U');
    assert.equal(r.body.data.last_name, 'Changed');
    assert.deepEqual(r.body.data.custom_fields, { company: 'Acme', vip: true });
    const got = (await mcp.call('get_subscriber', { subscriber_id: sub.id })).body.data;
    assert.deepEqual(got.groups, [{ id: g2.id, name: 'Two' }]);
  });

  test('validation: status bounced → -32602 (spec: active or unsubscribed only); bad custom field type → tool error', async () => {
    const { mcp, accountId } = await account();
    await fields.create(s.db, accountId, { key: 'age', type: 'number' });
    const sub = await add(mcp, { email: 'v@example.com' });
    const bad = await mcp.call('update_subscriber', { subscriber_id: sub.id, status: 'bounced' });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /status: Status must be one of: active, unsubscribed/);
    const typed = await mcp.call('update_subscriber', { subscriber_id: sub.id, custom_fields: { age: 'old' } });
    assert.deepEqual(typed.body, {
      error: 'custom_fields.age: Must be a number',
      data: { 'custom_fields.age': ['Must be a number'] },
    });
  });

  test("not found and another account's subscriber → not found, nothing changed", async () => {
    const other = await account();
    const theirs = await add(other.mcp, { email: 't@example.com', first_name: 'Theirs' });
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('update_subscriber', { subscriber_id: MISSING, first_name: 'X' })).body, {
      error: 'Subscriber not found',
    });
    assert.deepEqual((await mcp.call('update_subscriber', { subscriber_id: theirs.id, first_name: 'X' })).body, {
      error: 'Subscriber not found',
    });
    const row = await s.db
      .selectFrom('subscribers')
      .select('first_name')
      .where('id', '=', theirs.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.first_name, 'Theirs');
  });

  test('Forbidden without subscribers:write', async () => {
    const { mcp } = await account(['subscribers:read']);
    assert.deepEqual(
      (await mcp.call('update_subscriber', { subscriber_id: MISSING, first_name: 'X' })).body,
      forbidden('subscribers:write'),
    );
  });
});

describe('delete_subscriber', () => {
  test('removes the row with its memberships and history; a second delete is not found', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'G' })).body.data;
    const sub = await add(mcp, { email: 'd@example.com', groups: [g.id] });
    assert.deepEqual((await mcp.call('delete_subscriber', { subscriber_id: sub.id })).body, {
      success: true,
      data: { id: sub.id, deleted: true },
    });
    assert.equal(
      await s.db.selectFrom('subscribers').select('id').where('id', '=', sub.id).executeTakeFirst(),
      undefined,
    );
    assert.equal(
      (await s.db.selectFrom('subscriber_groups').select('group_id').where('subscriber_id', '=', sub.id).execute())
        .length,
      0,
    );
    assert.deepEqual((await mcp.call('delete_subscriber', { subscriber_id: sub.id })).body, {
      error: 'Subscriber not found',
    });
  });

  test("another account's subscriber → not found and still there; bad id → -32602; scope", async () => {
    const other = await account();
    const theirs = await add(other.mcp, { email: 't@example.com' });
    const { mcp } = await account();
    assert.deepEqual((await mcp.call('delete_subscriber', { subscriber_id: theirs.id })).body, {
      error: 'Subscriber not found',
    });
    assert.ok(await s.db.selectFrom('subscribers').select('id').where('id', '=', theirs.id).executeTakeFirst());
    assert.equal((await mcp.call('delete_subscriber', { subscriber_id: 'abc' })).error?.code, -32602);
    const ro = await account(['subscribers:read']);
    assert.deepEqual(
      (await ro.mcp.call('delete_subscriber', { subscriber_id: theirs.id })).body,
      forbidden('subscribers:write'),
    );
  });
});

describe('forget_subscriber', () => {
  test('deletes the subscriber, erases the address from events and the outbox, keeps only a salted hash in suppressions', async () => {
    const { mcp, accountId } = await account();
    const sub = await add(mcp, { email: 'Forget.Me@Example.com' });
    // an earlier copy of the address, deleted: its subscriber.deleted event names the address without a subscriber link
    const old = await add(mcp, { email: 'forget.me+old@example.com' });
    await s.db
      .updateTable('events')
      .set({ data: JSON.stringify({ subscriber: { id: old.id, email: 'FORGET.ME@example.com' } }) })
      .where('subscriber_id', '=', old.id)
      .execute();
    await s.db
      .insertInto('outbox')
      .values([
        {
          account_id: accountId,
          message_id: '<1@x>',
          from_addr: 'a@x',
          to_addr: 'Forget Me <forget.me@example.com>',
          subject: 'Hi',
        },
        {
          account_id: accountId,
          message_id: '<2@x>',
          from_addr: 'a@x',
          to_addr: 'forget.me@example.com',
          subject: 'Hi',
        },
        { account_id: accountId, message_id: '<3@x>', from_addr: 'a@x', to_addr: 'keep@example.com', subject: 'Hi' },
      ])
      .execute();
    const r = await mcp.call('forget_subscriber', { subscriber_id: sub.id });
    assert.deepEqual(r.body, { success: true, data: { id: sub.id, forgotten: true } });
    assert.equal(
      await s.db.selectFrom('subscribers').select('id').where('id', '=', sub.id).executeTakeFirst(),
      undefined,
    );
    const outbox = await s.db.selectFrom('outbox').select('to_addr').where('account_id', '=', accountId).execute();
    assert.deepEqual(
      outbox.map((o) => o.to_addr),
      ['keep@example.com'],
    );
    const events = await s.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', accountId)
      .execute();
    assert.doesNotMatch(JSON.stringify(events), /forget\.me@/i);
    assert.ok(events.some((e) => e.type === 'subscriber.deleted' && (e.data as any).forgotten === true));
    const supp = await s.db.selectFrom('suppressions').selectAll().where('account_id', '=', accountId).execute();
    assert.equal(supp.length, 1);
    assert.equal(supp[0]!.email_hash, suppressions.hashEmail(s.config.secret, 'forget.me@example.com'));
    assert.doesNotMatch(supp[0]!.email_hash, /forget/);
    assert.equal(await suppressions.isSuppressed(s.db, s.config.secret, accountId, ' FORGET.me@example.com'), true);
    // re-adding the address explicitly through the API is allowed
    assert.equal((await add(mcp, { email: 'forget.me@example.com' })).created, true);
  });

  test("not found; another account's subscriber → not found and untouched; scope", async () => {
    const other = await account();
    const theirs = await add(other.mcp, { email: 't@example.com' });
    const { mcp, accountId } = await account();
    assert.deepEqual((await mcp.call('forget_subscriber', { subscriber_id: MISSING })).body, {
      error: 'Subscriber not found',
    });
    assert.deepEqual((await mcp.call('forget_subscriber', { subscriber_id: theirs.id })).body, {
      error: 'Subscriber not found',
    });
    assert.ok(await s.db.selectFrom('subscribers').select('id').where('id', '=', theirs.id).executeTakeFirst());
    assert.equal(
      (await s.db.selectFrom('suppressions').select('email_hash').where('account_id', '=', accountId).execute()).length,
      0,
    );
    assert.equal((await mcp.call('forget_subscriber', {})).error?.code, -32602);
    const ro = await account(['subscribers:read']);
    assert.deepEqual(
      (await ro.mcp.call('forget_subscriber', { subscriber_id: theirs.id })).body,
      forbidden('subscribers:write'),
    );
  });
});

describe('assign_subscriber_to_group / unassign_subscriber_from_group', () => {
  test('assign adds the membership and writes subscriber.added_to_group once; unassign removes it with removed_from_group', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'Club' })).body.data;
    const sub = await add(mcp, { email: 'm@example.com' });
    const a1 = await mcp.call('assign_subscriber_to_group', { subscriber_id: sub.id, group_id: g.id });
    assert.deepEqual(a1.body.data, {
      subscriber: { id: sub.id, email: 'm@example.com' },
      group: { id: g.id, name: 'Club' },
      added: true,
    });
    assert.equal(
      (await mcp.call('assign_subscriber_to_group', { subscriber_id: sub.id, group_id: g.id })).body.data.added,
      false,
    );
    assert.equal((await mcp.call('get_group_subscribers', { group_id: g.id })).body.meta.total, 1);
    const u1 = await mcp.call('unassign_subscriber_from_group', { subscriber_id: sub.id, group_id: g.id });
    assert.equal(u1.body.data.removed, true);
    assert.equal(
      (await mcp.call('unassign_subscriber_from_group', { subscriber_id: sub.id, group_id: g.id })).body.data.removed,
      false,
    );
    const types = (
      await s.db.selectFrom('events').select('type').where('subscriber_id', '=', sub.id).orderBy('seq').execute()
    ).map((e) => e.type);
    assert.deepEqual(types, ['subscriber.created', 'subscriber.added_to_group', 'subscriber.removed_from_group']);
  });

  test("not found: unknown or another account's subscriber / group", async () => {
    const other = await account();
    const theirG = (await other.mcp.call('create_group', { name: 'Theirs' })).body.data;
    const theirS = await add(other.mcp, { email: 't@example.com' });
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'Mine' })).body.data;
    const sub = await add(mcp, { email: 'm@example.com' });
    for (const tool of ['assign_subscriber_to_group', 'unassign_subscriber_from_group']) {
      assert.deepEqual((await mcp.call(tool, { subscriber_id: sub.id, group_id: MISSING })).body, {
        error: 'Group not found',
      });
      assert.deepEqual((await mcp.call(tool, { subscriber_id: sub.id, group_id: theirG.id })).body, {
        error: 'Group not found',
      });
      assert.deepEqual((await mcp.call(tool, { subscriber_id: theirS.id, group_id: g.id })).body, {
        error: 'Subscriber not found',
      });
    }
    assert.equal(
      (await s.db.selectFrom('subscriber_groups').select('group_id').where('group_id', '=', theirG.id).execute())
        .length,
      0,
    );
  });

  test('validation (-32602) and scope (subscribers:write, not groups:write)', async () => {
    const { mcp } = await account(['groups:*', 'subscribers:read']);
    assert.equal((await mcp.call('assign_subscriber_to_group', { subscriber_id: MISSING })).error?.code, -32602);
    assert.equal(
      (await mcp.call('unassign_subscriber_from_group', { subscriber_id: MISSING, group_id: 'x' })).error?.code,
      -32602,
    );
    assert.deepEqual(
      (await mcp.call('assign_subscriber_to_group', { subscriber_id: MISSING, group_id: MISSING })).body,
      forbidden('subscribers:write'),
    );
    assert.deepEqual(
      (await mcp.call('unassign_subscriber_from_group', { subscriber_id: MISSING, group_id: MISSING })).body,
      forbidden('subscribers:write'),
    );
  });
});

describe('import_subscribers_to_group / get_single_import', () => {
  async function finished(mcp: ReturnType<typeof mcpClient>, importId: string) {
    for (let i = 0; i < 100; i++) {
      const r = await mcp.call('get_single_import', { import_id: importId });
      if (r.body.data.status !== 'processing') return r.body.data;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('import did not finish');
  }

  test('starts a job (status processing) that creates/updates subscribers into the group; bad rows fail individually', async () => {
    const { mcp, accountId } = await account();
    await fields.create(s.db, accountId, { key: 'company', type: 'text' });
    const g = (await mcp.call('create_group', { name: 'Imported' })).body.data;
    await add(mcp, { email: 'exists@example.com', first_name: 'Old' });
    const r = await mcp.call('import_subscribers_to_group', {
      group_id: g.id,
      subscribers: [
        { email: 'new1@example.com', first_name: 'New', custom_fields: { company: 'Acme' } },
        { email: 'EXISTS@example.com', first_name: 'Updated' },
        { email: 'not-an-email' },
      ],
    });
    assert.equal(r.isError, false, JSON.stringify(r.body ?? r.error));
    assert.equal(r.body.data.status, 'processing');
    const job = await finished(mcp, r.body.data.job_id);
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.total_rows, job.created_count, job.updated_count, job.failed_count], [3, 1, 1, 1]);
    assert.equal(job.errors[0].row, 3);
    const members = await mcp.call('get_group_subscribers', { group_id: g.id });
    assert.deepEqual(members.body.data.map((m: any) => m.email).sort(), ['exists@example.com', 'new1@example.com']);
    assert.equal((await mcp.call('get_subscriber', { email: 'exists@example.com' })).body.data.first_name, 'Updated');
    assert.deepEqual((await mcp.call('get_subscriber', { email: 'new1@example.com' })).body.data.custom_fields, {
      company: 'Acme',
    });
  });

  test('plan limit is checked before the job starts: tool error with current_count, import_count, limit', async () => {
    const { mcp } = await account(['*'], 2);
    const g = (await mcp.call('create_group', { name: 'G' })).body.data;
    await add(mcp, { email: 'a@example.com' });
    const r = await mcp.call('import_subscribers_to_group', {
      group_id: g.id,
      subscribers: [{ email: 'b@example.com' }, { email: 'c@example.com' }],
    });
    assert.equal(r.isError, true);
    assert.equal(r.body.error, 'Import would exceed the plan limit');
    assert.deepEqual(r.body.data, { current_count: 1, import_count: 2, limit: 2 });
  });

  test("not found: unknown or another account's group, unknown or another account's import", async () => {
    const other = await account();
    const theirG = (await other.mcp.call('create_group', { name: 'Theirs' })).body.data;
    const theirJob = (
      await other.mcp.call('import_subscribers_to_group', {
        group_id: theirG.id,
        subscribers: [{ email: 'x@example.com' }],
      })
    ).body.data;
    const { mcp } = await account();
    assert.deepEqual(
      (await mcp.call('import_subscribers_to_group', { group_id: MISSING, subscribers: [{ email: 'x@example.com' }] }))
        .body,
      { error: 'Group not found' },
    );
    assert.deepEqual(
      (
        await mcp.call('import_subscribers_to_group', {
          group_id: theirG.id,
          subscribers: [{ email: 'x@example.com' }],
        })
      ).body,
      { error: 'Group not found' },
    );
    assert.deepEqual((await mcp.call('get_single_import', { import_id: MISSING })).body, { error: 'Import not found' });
    assert.deepEqual((await mcp.call('get_single_import', { import_id: theirJob.job_id })).body, {
      error: 'Import not found',
    });
  });

  test('validation: no subscribers, a row without email, a non-UUID import_id → -32602', async () => {
    const { mcp } = await account();
    const g = (await mcp.call('create_group', { name: 'G' })).body.data;
    assert.equal(
      (await mcp.call('import_subscribers_to_group', { group_id: g.id, subscribers: [] })).error?.message,
      'subscribers: At least one subscriber is required',
    );
    assert.equal(
      (await mcp.call('import_subscribers_to_group', { group_id: g.id, subscribers: [{ first_name: 'x' }] })).error
        ?.message,
      'subscribers.0.email: email is required for every subscriber',
    );
    assert.equal((await mcp.call('get_single_import', { import_id: '1' })).error?.code, -32602);
  });

  test('scopes: get_single_import needs subscribers:read, import_subscribers_to_group subscribers:write', async () => {
    const { mcp } = await account(['groups:*']);
    assert.deepEqual((await mcp.call('get_single_import', { import_id: MISSING })).body, forbidden('subscribers:read'));
    assert.deepEqual(
      (await mcp.call('import_subscribers_to_group', { group_id: MISSING, subscribers: [{ email: 'a@b.co' }] })).body,
      forbidden('subscribers:write'),
    );
  });
});
