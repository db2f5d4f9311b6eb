// The subscribers domain beneath both faces: input validation shared with MCP (parseInput, storable text),
// upsertByEmail, event payloads, tenant scoping, stats arithmetic.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Conflict, LimitExceeded, NotFound, Validation } from '../../../src/domain/errors.ts';
import * as fields from '../../../src/domain/subscribers/fields.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as repo from '../../../src/domain/subscribers/queries.ts';
import { pagination } from '../../../src/http/rest/envelope.ts';
import { backend, migratedDb } from '../../support/db.ts';
import { createGroup, eventsOf, eventTypes, groupIdsOf } from '../../support/rows.ts';

const { db } = await migratedDb();

const MISSING = '00000000-0000-4000-8000-000000000000';
const newAccount = async (limit = 1000) => (await accounts.create(db, { name: 'Subs' }, limit)).id;

async function rejects<E extends Error>(p: Promise<unknown>, type: new (...a: any[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    assert.ok(
      err instanceof type,
      `expected ${type.name}, got ${(err as Error).constructor.name}: ${(err as Error).message}`,
    );
    return err as E;
  }
  assert.fail(`expected ${type.name}`);
}

describe('subscribers domain', () => {
  test('create validates its own input (MCP and the dashboard call it without the REST face): field map and first problem', async () => {
    const acc = await newAccount();
    const err = await rejects(subscribers.create(db, acc, { email: ' not an email ' } as any), Validation);
    assert.deepEqual(Object.keys(err.fields), ['email']);
    assert.equal(err.message, 'email: A valid email address is required');
    const nul = await rejects(
      subscribers.create(db, acc, { email: 'a@example.com', first_name: 'a\u0000' }),
      Validation,
    );
    assert.deepEqual(nul.fields, { first_name: ['Must not contain NUL, control characters or unpaired surrogates'] });
  });

  test('create trims the email, keeps its case, and compares case-insensitively (409 Conflict)', async () => {
    const acc = await newAccount();
    const row = await subscribers.create(db, acc, { email: '  Ada@Example.COM ' });
    assert.equal(row.email, 'Ada@Example.COM');
    const dup = await rejects(subscribers.create(db, acc, { email: 'ada@example.com' }), Conflict);
    assert.equal(dup.message, 'Email already exists');
  });

  test('create: subscriber.created carries the public view (no account_id, no source) and the source apart', async () => {
    const acc = await newAccount();
    const row = await subscribers.create(db, acc, { email: 'ev@example.com', first_name: 'Ev' }, 'import');
    const [e] = await eventsOf(db, acc);
    assert.equal(e!.type, 'subscriber.created');
    assert.equal(e!.subscriber_id, row.id);
    const data = e!.data as { subscriber: Record<string, unknown>; source: string };
    assert.equal(data.source, 'import');
    assert.equal(data.subscriber.email, 'ev@example.com');
    assert.ok(!('account_id' in data.subscriber) && !('source' in data.subscriber));
  });

  test('create: the plan limit is LimitExceeded with {current_count, limit}', async () => {
    const acc = await newAccount(1);
    await subscribers.create(db, acc, { email: 'one@example.com' });
    const err = await rejects(subscribers.create(db, acc, { email: 'two@example.com' }), LimitExceeded);
    assert.deepEqual([err.message, err.data], ['Subscriber limit reached', { current_count: 1, limit: 1 }]);
  });

  test('concurrent creates around the limit: exactly the limit gets through, the rest is LimitExceeded', async () => {
    // the limit sits just past the point where creates stop sharing the account row, so the burst crosses
    // from the shared check into the exclusive one
    const { sessions } = (
      await sql<{ sessions: number }>`select current_setting('max_connections')::int as sessions`.execute(db)
    ).rows[0]!;
    const acc = await newAccount(sessions + 10);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => subscribers.create(db, acc, { email: `seed${i}@example.com` })),
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: sessions + 20 }, (_, i) => subscribers.create(db, acc, { email: `burst${i}@example.com` })),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.equal(outcomes.length - refused.length, sessions);
    for (const r of refused) assert.ok((r as PromiseRejectedResult).reason instanceof LimitExceeded);
    assert.equal((await subscribers.stats(db, acc)).total, sessions + 10);
  });

  test(
    'far from the limit, a create does not wait for another one still uncommitted (PostgreSQL)',
    {
      skip: backend === 'pglite' && 'one connection: PGlite runs transactions one at a time',
    },
    async () => {
      const acc = await newAccount();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let created!: () => void;
      const inside = new Promise<void>((r) => (created = r));
      // what a create holds until it commits: the shared check and its row
      const slow = db.transaction().execute(async (trx) => {
        const room = await repo.roomForOne(trx, acc, [], 'share');
        assert.ok(room.count + room.sessions <= room.limit);
        await repo.insert(trx, { account_id: acc, email: 'first@example.com', custom_fields: '{}', source: 'api' });
        created();
        await held;
      });
      await inside;
      const second = await Promise.race([
        subscribers.create(db, acc, { email: 'second@example.com' }).then(() => 'created'),
        new Promise((r) => setTimeout(r, 5_000, 'waited')),
      ]);
      release();
      await slow;
      assert.equal(second, 'created');
    },
  );

  test("getFull by id or by email (case-insensitive); another account's id or email is NotFound", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const row = await subscribers.create(db, acc, { email: 'Find@Example.com' });
    assert.equal((await subscribers.getFull(db, acc, { email: ' find@example.com ' })).id, row.id);
    assert.deepEqual((await subscribers.getFull(db, acc, { id: row.id })).groups, []);
    await rejects(subscribers.getFull(db, other, { id: row.id }), NotFound);
    await rejects(subscribers.getFull(db, other, { email: 'find@example.com' }), NotFound);
  });

  test('update: a status change to unsubscribed stamps unsubscribed_at; the same status again writes no second unsubscribed event', async () => {
    const acc = await newAccount();
    const row = await subscribers.create(db, acc, { email: 'u@example.com' });
    const once = await subscribers.update(db, acc, row.id, { status: 'unsubscribed' });
    assert.ok(once.unsubscribed_at);
    await subscribers.update(db, acc, row.id, { status: 'unsubscribed' });
    const types = (await eventsOf(db, acc)).map((e) => e.type);
    assert.deepEqual(types, [
      'subscriber.created',
      'subscriber.updated',
      'subscriber.unsubscribed',
      'subscriber.updated',
    ]);
    assert.equal((await subscribers.update(db, acc, row.id, { status: 'active' })).unsubscribed_at, null);
  });

  test("update and remove are scoped by account: another account's id is NotFound and nothing changes", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const row = await subscribers.create(db, acc, { email: 's@example.com', first_name: 'Kept' });
    await rejects(subscribers.update(db, other, row.id, { first_name: 'Changed' }), NotFound);
    await rejects(subscribers.remove(db, other, row.id), NotFound);
    await rejects(subscribers.update(db, acc, MISSING, { first_name: 'x' }), NotFound);
    assert.equal((await subscribers.get(db, acc, row.id)).first_name, 'Kept');
  });

  test("update with the caller's transaction joins it: the change and its events roll back with the caller; groups stay without group_ids", async () => {
    const acc = await newAccount();
    const group = await createGroup(db, acc, 'Kept');
    const row = await subscribers.create(db, acc, { email: 't@example.com', first_name: 'Before', group_ids: [group] });
    const typesBefore = await eventTypes(db, acc);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        assert.equal((await subscribers.update(trx, acc, row.id, { first_name: 'Inside' })).first_name, 'Inside');
        throw new Error('caller rolls back');
      }),
      /caller rolls back/,
    );
    assert.equal((await subscribers.get(db, acc, row.id)).first_name, 'Before');
    assert.deepEqual(await eventTypes(db, acc), typesBefore);
    await db
      .transaction()
      .execute((trx) => subscribers.update(trx, acc, row.id, { custom_fields: {}, last_name: 'After' }));
    assert.equal((await subscribers.get(db, acc, row.id)).last_name, 'After');
    assert.deepEqual(await groupIdsOf(db, row.id), [group]);
  });

  test('checkGroups dedupes (case-insensitively) and names every missing or foreign group', async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const g = await createGroup(db, acc, 'Mine');
    const foreign = await createGroup(db, other, 'Theirs');
    assert.deepEqual(await subscribers.checkGroups(db, acc, [g, g.toUpperCase()]), [g]);
    const err = await rejects(subscribers.checkGroups(db, acc, [g, foreign, MISSING]), Validation);
    assert.deepEqual(err.fields, { group_ids: [`Group not found: ${foreign}`, `Group not found: ${MISSING}`] });
  });

  test('upsertByEmail (MCP add_subscriber): new → created; existing → only given fields change, custom_fields merge, groups are added', async () => {
    const acc = await newAccount();
    await fields.create(db, acc, { key: 'company' });
    await fields.create(db, acc, { key: 'city' });
    const [g1, g2] = [await createGroup(db, acc, 'G1'), await createGroup(db, acc, 'G2')];
    const first = await subscribers.upsertByEmail(db, acc, {
      email: 'Up@example.com',
      first_name: 'Ada',
      groups: [g1],
      custom_fields: { company: 'AE' },
    });
    assert.equal(first.created, true);
    const second = await subscribers.upsertByEmail(db, acc, {
      email: 'up@EXAMPLE.com',
      last_name: 'Lovelace',
      groups: [g2],
      custom_fields: { city: 'London' },
    });
    assert.equal(second.created, false);
    assert.equal(second.subscriber.id, first.subscriber.id);
    const full = await subscribers.getFull(db, acc, { id: first.subscriber.id });
    assert.deepEqual([full.email, full.first_name, full.last_name], ['Up@example.com', 'Ada', 'Lovelace']);
    assert.deepEqual(full.custom_fields, { company: 'AE', city: 'London' });
    assert.deepEqual(
      full.groups.map((g) => g.name),
      ['G1', 'G2'],
    );
    const third = await subscribers.upsertByEmail(db, acc, { email: 'new@example.com', status: 'unsubscribed' });
    assert.deepEqual(
      [third.created, third.subscriber.status, Boolean(third.subscriber.unsubscribed_at)],
      [true, 'unsubscribed', true],
    );
  });

  test('upsertByEmail: the plan limit applies to new addresses only', async () => {
    const acc = await newAccount(1);
    await subscribers.upsertByEmail(db, acc, { email: 'only@example.com' });
    assert.equal(
      (await subscribers.upsertByEmail(db, acc, { email: 'ONLY@example.com', first_name: 'Still' })).created,
      false,
    );
    const err = await rejects(subscribers.upsertByEmail(db, acc, { email: 'second@example.com' }), LimitExceeded);
    assert.deepEqual(err.data, { current_count: 1, limit: 1 });
  });

  test('list validates its query (ListQuery): clamps per_page, refuses bad numbers with a field map', async () => {
    const acc = await newAccount();
    assert.equal((await subscribers.list(db, acc, { per_page: '250' })).per_page, 100);
    const err = await rejects(subscribers.list(db, acc, { page: '0' }), Validation);
    assert.deepEqual(Object.keys(err.fields), ['page']);
    assert.deepEqual(pagination(await subscribers.list(db, acc, { search: '' })), {
      current_page: 1,
      total_pages: 0,
      total_count: 0,
      per_page: 20,
    });
  });

  test('pages walked in order start where the last ended and equal the skipped pages, to the microsecond; a write forgets where they start', async () => {
    const acc = await newAccount();
    for (let i = 0; i < 9; i++) await subscribers.create(db, acc, { email: `walk${i}@example.com` });
    // created_at values a millisecond cannot tell apart, and ties that only the id orders
    await sql`update subscribers set created_at = case
        when email < 'walk3' then timestamptz '2026-01-01 00:00:00.000001+00'
        when email < 'walk6' then timestamptz '2026-01-01 00:00:00.000002+00'
        else timestamptz '2026-01-01 00:00:00.000003+00' end
      where account_id = ${acc}`.execute(db);
    const order = async () =>
      (
        await sql<{ email: string }>`select email from subscribers where account_id = ${acc}
          order by created_at desc, id desc`.execute(db)
      ).rows.map((r) => r.email);
    const page = async (n: number, q: subscribers.ListQuery = {}) =>
      (await subscribers.list(db, acc, { per_page: 2, page: n, ...q })).items.map((s) => s.email);
    const expected = await order();
    const walked: string[] = [];
    for (let n = 1; n <= 5; n++) walked.push(...(await page(n)));
    assert.deepEqual(walked, expected);
    assert.deepEqual(await page(3), expected.slice(4, 6), 'a page read again starts where it started');
    assert.deepEqual(await page(4, { status: 'active' }), expected.slice(6, 8), 'each filter keeps its own places');
    await subscribers.create(db, acc, { email: 'walk-new@example.com' });
    const after = await order();
    assert.equal(after[0], 'walk-new@example.com');
    assert.deepEqual(await page(3), after.slice(4, 6), 'after a write the page is counted again');
    assert.deepEqual(await page(4), after.slice(6, 8));
  });

  test('a search is kept between writes, never past one: a new match, a rename, a membership and a delete show at once', async () => {
    const acc = await newAccount();
    const group = await createGroup(db, acc, 'Kept');
    const search = async (q: subscribers.ListQuery = {}) => {
      const page = await subscribers.list(db, acc, { search: 'zebulon', ...q });
      return { total: page.total, emails: page.items.map((s) => s.email).sort() };
    };
    assert.deepEqual(await search(), { total: 0, emails: [] });
    const a = await subscribers.create(db, acc, { email: 'zebulon.a@example.com' });
    assert.deepEqual(await search(), { total: 1, emails: ['zebulon.a@example.com'] });
    assert.deepEqual(await search(), { total: 1, emails: ['zebulon.a@example.com'] }, 'the kept answer is the same');
    const b = await subscribers.create(db, acc, { email: 'b@example.com', last_name: 'Zebulon' });
    assert.equal((await search()).total, 2);
    await subscribers.update(db, acc, b.id, { last_name: 'Other' });
    assert.deepEqual(await search(), { total: 1, emails: ['zebulon.a@example.com'] });
    assert.equal((await search({ group_id: group })).total, 0);
    await subscribers.update(db, acc, a.id, { group_ids: [group] });
    assert.deepEqual(await search({ group_id: group }), { total: 1, emails: ['zebulon.a@example.com'] });
    await subscribers.remove(db, acc, a.id);
    assert.deepEqual(await search(), { total: 0, emails: [] });
    assert.equal((await search({ group_id: group })).total, 0);
  });

  test('creates that nobody counts during fold the kept count as they go: its rows stay few, the count exact', async () => {
    const acc = await newAccount(10_000);
    for (let i = 0; i < 300; i++) await subscribers.create(db, acc, { email: `burst${i}@example.com` });
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from subscriber_counts
      where account_id = ${acc} and group_id is null`.execute(db);
    assert.ok(rows[0]!.n <= 257, `${rows[0]!.n} rows of the account's kept count`);
    assert.equal((await subscribers.stats(db, acc)).total, 300);
  });

  test('a search pages the same whether its matches are few (sorted out of them) or many (the list walked), to the exact total', async () => {
    const acc = await newAccount(10_000);
    // more matches than FEW_MATCHES for "crowd", three for "rare", in an order only created_at and id give
    const many = repo.FEW_MATCHES + 30;
    await sql`
      insert into subscribers (account_id, email, first_name, created_at)
      select ${acc}::uuid, 'm' || g || '@crowd.test', case when g % 500 = 7 then 'Rare' else null end,
             timestamptz '2026-01-01 00:00:00+00' + (g / 3) * interval '1 second'
      from generate_series(1, ${many}::int) g`.execute(db);
    for (const word of ['crowd', 'rare']) {
      const expected = (
        await sql<{ email: string }>`select email from subscribers where account_id = ${acc}
          and (lower(email) like ${`%${word}%`} or lower(first_name) like ${`%${word}%`})
          order by created_at desc, id desc`.execute(db)
      ).rows.map((r) => r.email);
      const walked: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const got = await subscribers.list(db, acc, { search: word, per_page: 100, page });
        assert.equal(got.total, expected.length, `${word}: the exact total on page ${page}`);
        walked.push(...got.items.map((r) => r.email));
      }
      assert.deepEqual(walked, expected.slice(0, 300), word);
      const last = Math.ceil(expected.length / 100);
      const past = await subscribers.list(db, acc, { search: word, per_page: 100, page: last + 1 });
      assert.deepEqual([past.items, past.total], [[], expected.length], `${word}: past the last page`);
    }
  });

  test('stats: usage_percentage is the rounded integer share of the limit; complained counts in total only', async () => {
    const acc = await newAccount(7);
    for (const email of ['a@x.io', 'b@x.io', 'c@x.io']) await subscribers.create(db, acc, { email });
    await db
      .updateTable('subscribers')
      .set({ status: 'complained' })
      .where('account_id', '=', acc)
      .where('email', '=', 'c@x.io')
      .execute();
    assert.deepEqual(await subscribers.stats(db, acc), {
      total: 3,
      active: 2,
      unsubscribed: 0,
      bounced: 0,
      limit: 7,
      usage_percentage: 43,
    });
  });
});
