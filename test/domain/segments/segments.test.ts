// "Segment" in the domain: validation names the rule at fault, limits hold, values are bound
// (never SQL), counts and members follow the data, and an id or group of another account resolves to nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Conflict, NotFound, Validation } from '../../../src/domain/errors.ts';
import * as fields from '../../../src/domain/subscribers/fields.ts';
import * as segments from '../../../src/domain/segments/segments.ts';
import { compileFor, type Filter } from '../../../src/domain/segments/filter.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const MISSING = '00000000-0000-4000-8000-000000000000';
const newAccount = async () => (await accounts.create(db, { name: 'Seg' }, 1000)).id;
const all = (...rules: Filter['rules']): Filter => ({ match: 'all', rules });

async function rejects(p: Promise<unknown>, message: string, field?: string) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof Validation, `expected Validation, got ${String(err)}`);
    assert.equal(err.message, message);
    if (field) assert.ok(err.fields[field], `no ${field} in ${JSON.stringify(err.fields)}`);
    return true;
  });
}

describe('Segment validation', () => {
  test('an operator the field does not take is named by its path: "filter.rules.0.operator: Operator gt is not valid for field email"', async () => {
    const acc = await newAccount();
    await rejects(
      segments.create(db, acc, { name: 'x', filter: all({ field: 'email', operator: 'gt', value: 'a' }) }),
      'filter.rules.0.operator: Operator gt is not valid for field email',
      'filter.rules.0.operator',
    );
  });

  test('unknown field, unknown operator, unknown custom field, nested paths', async () => {
    const acc = await newAccount();
    await rejects(
      segments.create(db, acc, { name: 'x', filter: all({ field: 'password', operator: 'eq', value: 'a' }) }),
      'filter.rules.0.field: Unknown field password: use one of email, first_name, last_name, phone, status, created_at, group, campaign_opened, campaign_clicked or custom_fields.<key>',
    );
    await rejects(
      segments.create(db, acc, { name: 'x', filter: all({ field: 'email', operator: 'like', value: 'a' }) }),
      'filter.rules.0.operator: Unknown operator like: use one of eq, neq, contains, not_contains, starts_with, ends_with, gt, gte, lt, lte, before, after, within_last_days, is_set, is_not_set, in, not_in',
    );
    await rejects(
      segments.create(db, acc, {
        name: 'x',
        filter: all({ field: 'custom_fields.plan', operator: 'eq', value: 'pro' }),
      }),
      'filter.rules.0.field: Unknown custom field: plan',
    );
    await rejects(
      segments.create(db, acc, {
        name: 'x',
        filter: all(
          { field: 'status', operator: 'eq', value: 'active' },
          { match: 'any', rules: [{ field: 'status', operator: 'eq', value: 'gone' }] },
        ),
      }),
      'filter.rules.1.rules.0.value: Must be one of: active, unsubscribed, bounced, complained',
    );
  });

  test('values must fit the field type (custom fields typed by the account definitions)', async () => {
    const acc = await newAccount();
    await fields.create(db, acc, { key: 'score', type: 'number' });
    await fields.create(db, acc, { key: 'birthday', type: 'date' });
    await fields.create(db, acc, { key: 'vip', type: 'boolean' });
    const bad: [Filter['rules'][number], string][] = [
      [{ field: 'custom_fields.score', operator: 'gt', value: 'ten' }, 'value: Must be a number'],
      [
        { field: 'custom_fields.score', operator: 'contains', value: '1' },
        'operator: Operator contains is not valid for field custom_fields.score',
      ],
      [
        { field: 'custom_fields.birthday', operator: 'before', value: '2024-02-30' },
        'value: Must be a date (YYYY-MM-DD)',
      ],
      [{ field: 'custom_fields.vip', operator: 'eq', value: 'yes' }, 'value: Must be true or false'],
      [
        { field: 'created_at', operator: 'within_last_days', value: 1.5 },
        'value: Must be a whole number of days (0 to 36500)',
      ],
      [
        { field: 'created_at', operator: 'after', value: 'yesterday' },
        'value: Must be an ISO 8601 date (YYYY-MM-DD) or date-time with offset',
      ],
      [{ field: 'email', operator: 'contains', value: '' }, 'value: Must not be empty'],
      [{ field: 'email', operator: 'in', value: [] }, 'value: Operator in needs a non-empty array of values'],
      [{ field: 'first_name', operator: 'eq' }, 'value: A value is required for operator eq'],
      [{ field: 'group', operator: 'eq', value: 'not-a-uuid' }, 'value: Must be a group id (UUID)'],
      [
        { field: 'campaign_opened', operator: 'gt', value: MISSING },
        'operator: Operator gt is not valid for field campaign_opened',
      ],
    ];
    for (const [rule, message] of bad)
      await rejects(segments.create(db, acc, { name: 'x', filter: all(rule) }), `filter.rules.0.${message}`);
  });

  test("a group id that is not one of the account's groups (missing or another account's) → Group not found", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const foreign = await db
      .insertInto('groups')
      .values({ account_id: other, name: 'Theirs' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of [MISSING, foreign.id]) {
      await rejects(
        segments.create(db, acc, { name: 'x', filter: all({ field: 'group', operator: 'in', value: [id] }) }),
        `filter.rules.0.value: Group not found: ${id}`,
      );
    }
  });

  test('structure: match must be all/any, rules non-empty, nesting ≤ 5 levels, ≤ 100 rules', async () => {
    const acc = await newAccount();
    await rejects(
      segments.create(db, acc, {
        name: 'x',
        filter: { match: 'some', rules: [{ field: 'email', operator: 'eq', value: 'a' }] } as any,
      }),
      'filter.match: match must be "all" or "any"',
    );
    await rejects(
      segments.create(db, acc, { name: 'x', filter: all() }),
      'filter.rules: At least one rule is required',
    );
    await rejects(
      segments.create(db, acc, { name: 'x', filter: all({ field: 'email' } as any) }),
      'filter.rules.0: Each rule needs field and operator (or match and rules for a nested group)',
    );
    let deep: Filter = all({ field: 'status', operator: 'eq', value: 'active' });
    for (let i = 0; i < 5; i++) deep = all(deep);
    await rejects(
      segments.create(db, acc, { name: 'x', filter: deep }),
      'filter.rules.0.rules.0.rules.0.rules.0.rules.0: Rule groups can be nested at most 5 levels deep',
    );
    // a hostile depth is refused as validation, not a stack overflow (a recursive schema threw RangeError at ~2,000)
    for (let i = 0; i < 20_000; i++) deep = all(deep);
    await assert.rejects(segments.create(db, acc, { name: 'x', filter: deep }), Validation);
    const many = all(...Array.from({ length: 101 }, () => ({ field: 'status', operator: 'eq', value: 'active' })));
    await rejects(
      segments.create(db, acc, { name: 'x', filter: many }),
      'filter.rules: A filter can have at most 100 rules',
    );
    const spread = all(
      ...Array.from({ length: 3 }, () =>
        all(...Array.from({ length: 40 }, () => ({ field: 'status', operator: 'eq', value: 'active' }))),
      ),
    );
    await rejects(
      segments.create(db, acc, { name: 'x', filter: spread }),
      'filter.rules: A filter can have at most 100 rules (it has 120)',
    );
  });

  test('name is required and unique per account (case-insensitively)', async () => {
    const acc = await newAccount();
    const filter = all({ field: 'status', operator: 'eq', value: 'active' });
    await rejects(segments.create(db, acc, { name: '  ', filter }), 'name: Name is required');
    await segments.create(db, acc, { name: 'Active', filter });
    await assert.rejects(
      segments.create(db, acc, { name: 'ACTIVE', filter }),
      (e: unknown) => e instanceof Conflict && e.message === 'A segment with this name already exists',
    );
    await segments.create(db, await newAccount(), { name: 'Active', filter });
  });
});

describe('Segment members and counts', () => {
  test('values are bound parameters and LIKE wildcards are literal: quotes, %, _ and \\ match only themselves', async () => {
    const acc = await newAccount();
    for (const [email, first_name] of [
      ['a@x.co', "O'Brien"],
      ['b@x.co', '100%'],
      ['c@x.co', '1000'],
      ['d@x.co', 'a_b'],
      ['e@x.co', 'axb'],
      ['f@x.co', 'c\\d'],
    ]) {
      await subscribers.create(db, acc, { email, first_name });
    }
    const count = async (rule: Filter['rules'][number]) =>
      (await segments.create(db, acc, { name: crypto.randomUUID(), filter: all(rule) })).subscriber_count;
    assert.equal(await count({ field: 'first_name', operator: 'eq', value: "o'brien" }), 1);
    assert.equal(await count({ field: 'first_name', operator: 'contains', value: '%' }), 1);
    assert.equal(await count({ field: 'first_name', operator: 'contains', value: '_' }), 1);
    assert.equal(await count({ field: 'first_name', operator: 'contains', value: '\\' }), 1);
    assert.equal(await count({ field: 'first_name', operator: 'eq', value: "' or 1=1 --" }), 0);
    assert.equal(await count({ field: 'first_name', operator: 'not_contains', value: '%' }), 5);
    assert.equal(await subscribers.stats(db, acc).then((s) => s.total), 6); // nothing was dropped or changed
  });

  test("subscriber_count and members follow the data; only the account's own subscribers; newest first; paging", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    await fields.create(db, acc, { key: 'plan', type: 'text' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await subscribers.create(db, acc, { email: `p${i}@x.co`, custom_fields: { plan: i % 2 ? 'pro' : 'free' } }))
          .id,
      );
    await subscribers.create(db, other, { email: 'p9@x.co' });
    const seg = await segments.create(db, acc, {
      name: 'Pro',
      filter: all({ field: 'custom_fields.plan', operator: 'eq', value: 'PRO' }),
    });
    assert.equal(seg.subscriber_count, 2);
    await subscribers.update(db, acc, ids[0]!, { custom_fields: { plan: 'pro' } });
    assert.equal((await segments.get(db, acc, seg.id)).subscriber_count, 3);
    const page1 = await segments.members(db, acc, seg.id, { page: 1, per_page: 2 });
    assert.equal(page1.total, 3);
    assert.deepEqual(
      page1.items.map((s) => s.email),
      ['p3@x.co', 'p1@x.co'],
    );
    assert.deepEqual(Object.keys(page1.items[0]!).sort(), [
      'created_at',
      'email',
      'first_name',
      'id',
      'last_name',
      'status',
    ]);
    const page2 = await segments.members(db, acc, seg.id, { page: 2, per_page: 2 });
    assert.deepEqual(
      page2.items.map((s) => s.email),
      ['p0@x.co'],
    );
  });

  test('a count is kept until the next write and shared by concurrent askers; a rule on campaign activity is always counted afresh', async () => {
    const acc = await newAccount();
    const types = await fields.definitions(db, acc);
    let counts = 0;
    const count = async () => [++counts];
    const plain = all({ field: 'status', operator: 'eq', value: 'active' });
    const [a, b] = await Promise.all([
      segments.counted(db, acc, types, [plain], count),
      segments.counted(db, acc, types, [plain], count),
    ]);
    assert.deepEqual([a, b, await segments.counted(db, acc, types, [plain], count)], [[1], [1], [1]]);
    await subscribers.create(db, acc, { email: 'new@example.com' });
    assert.deepEqual(await segments.counted(db, acc, types, [plain], count), [2], 'a write: counted again');
    assert.deepEqual(
      await segments.counted(db, acc, types, [plain], count, { audience: ['g'] }),
      [3],
      'keyed by what else it reads',
    );
    const opened = all({ field: 'campaign_opened', operator: 'eq', value: MISSING });
    await segments.counted(db, acc, types, [opened], count);
    assert.deepEqual(await segments.counted(db, acc, types, [opened], count), [5]);
  });

  test('list shows each segment with its own count, newest first, with total and clamped per_page', async () => {
    const acc = await newAccount();
    await subscribers.create(db, acc, { email: 'a@x.co' });
    await subscribers.create(db, acc, { email: 'b@y.co' });
    await segments.create(db, acc, {
      name: 'X',
      filter: all({ field: 'email', operator: 'ends_with', value: '@x.co' }),
    });
    await segments.create(db, acc, {
      name: 'All',
      filter: { match: 'any', rules: [{ field: 'email', operator: 'contains', value: '@' }] },
    });
    const r = await segments.list(db, acc, { page: 1, per_page: 500 });
    assert.equal(r.per_page, 100);
    assert.equal(r.total, 2);
    assert.deepEqual(
      r.items.map((s) => [s.name, s.subscriber_count]),
      [
        ['All', 2],
        ['X', 1],
      ],
    );
    await assert.rejects(
      segments.list(db, acc, { page: 0 }),
      (e: unknown) => e instanceof Validation && e.message === 'page: page must be a positive integer',
    );
  });

  test("update changes name and/or filter; delete removes; another account's id → Segment not found", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const seg = await segments.create(db, acc, {
      name: 'A',
      filter: all({ field: 'status', operator: 'eq', value: 'active' }),
    });
    const renamed = await segments.update(db, acc, seg.id, { name: 'B' });
    assert.equal(renamed.name, 'B');
    assert.deepEqual(renamed.filter, seg.filter);
    const refiltered = await segments.update(db, acc, seg.id, {
      filter: all({ field: 'status', operator: 'neq', value: 'active' }),
    });
    assert.equal(refiltered.name, 'B');
    assert.equal(
      refiltered.filter.rules[0] && 'operator' in refiltered.filter.rules[0] ? refiltered.filter.rules[0].operator : '',
      'neq',
    );
    await rejects(segments.update(db, acc, seg.id, {}), 'name: Give name and/or filter to change');
    await segments.create(db, acc, { name: 'Taken', filter: seg.filter });
    await assert.rejects(
      segments.update(db, acc, seg.id, { name: 'TAKEN' }),
      (e: unknown) => e instanceof Conflict && e.message === 'A segment with this name already exists',
    );
    const notFound = (e: unknown) => e instanceof NotFound && e.message === 'Segment not found';
    await assert.rejects(segments.get(db, other, seg.id), notFound);
    await assert.rejects(segments.update(db, other, seg.id, { name: 'C' }), notFound);
    await assert.rejects(segments.remove(db, other, seg.id), notFound);
    await assert.rejects(segments.members(db, other, seg.id), notFound);
    await segments.remove(db, acc, seg.id);
    await assert.rejects(segments.get(db, acc, seg.id), notFound);
  });

  test('a custom field deleted after the segment was saved: the rule matches no one instead of failing', async () => {
    const acc = await newAccount();
    const f = await fields.create(db, acc, { key: 'score', type: 'number' });
    await subscribers.create(db, acc, { email: 'a@x.co', custom_fields: { score: 5 } });
    const seg = await segments.create(db, acc, {
      name: 'High',
      filter: all({ field: 'custom_fields.score', operator: 'gt', value: 1 }),
    });
    assert.equal(seg.subscriber_count, 1);
    await fields.remove(db, acc, f.id);
    await fields.create(db, acc, { key: 'score', type: 'text' }); // re-created with another type
    assert.equal((await segments.get(db, acc, seg.id)).subscriber_count, 0);
  });

  test('compileFor and whereInAny give callers (campaign audiences) the same matching', async () => {
    const acc = await newAccount();
    await subscribers.create(db, acc, { email: 'a@x.co', first_name: 'Ada' });
    await subscribers.create(db, acc, { email: 'b@x.co', first_name: 'Bob' });
    await subscribers.create(db, acc, { email: 'c@x.co', first_name: 'Cy' });
    const where = await compileFor(db, acc, all({ field: 'first_name', operator: 'in', value: ['ada', 'BOB'] }));
    const rows = await db
      .selectFrom('subscribers')
      .select('email')
      .where('account_id', '=', acc)
      .where(where)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.email),
      ['a@x.co', 'b@x.co'],
    );
    const s1 = await segments.create(db, acc, {
      name: 'A',
      filter: all({ field: 'first_name', operator: 'eq', value: 'ada' }),
    });
    const s2 = await segments.create(db, acc, {
      name: 'C',
      filter: all({ field: 'first_name', operator: 'starts_with', value: 'c' }),
    });
    const any = await segments.whereInAny(db, acc, [s1.id, s2.id]);
    const both = await db
      .selectFrom('subscribers')
      .select('email')
      .where('account_id', '=', acc)
      .where(any)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      both.map((r) => r.email),
      ['a@x.co', 'c@x.co'],
    );
    await rejects(segments.whereInAny(db, await newAccount(), [s1.id]), `segment_ids: Segment not found: ${s1.id}`);
  });
});
