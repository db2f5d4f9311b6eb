// The hot reads keep their index plans at scale: 100,000 subscribers in one account (two group memberships
// each, custom fields, a subscriber with 500 events), then each read is run through the domain function its
// route calls, every statement it sends is captured and explained (EXPLAIN (FORMAT JSON)), and the plan is
// checked: no sequential scan of subscribers for a search, a group filter or a page, deep pages skipping rows
// in the index alone, totals and group counts from the kept counts. A schema change that breaks one of these
// plans fails here. PostgreSQL only: PGlite's planner is the same, but its statistics after a bulk load
// are what this file would be testing, and seeding 100k rows there takes minutes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import type { Db } from '../../../src/db/client.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as activity from '../../../src/domain/subscribers/activity.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { backend, migratedDb } from '../../support/db.ts';

const ROWS = 100_000;
const skip =
  backend !== 'postgres' && 'PostgreSQL only: set TEST_DATABASE_URL (PGlite is not seeded at 100k rows here)';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

describe('query plans at 100,000 subscribers', { skip }, async () => {
  if (skip) return;
  const { db } = await migratedDb();
  const acc = (await accounts.create(db, { name: 'Plans' }, 1_000_000)).id;
  const gs: string[] = [];
  let busy = '';

  /** Runs `read` and returns the plans of the statements it sent that read subscribers, groups or events. */
  async function plansOf(read: (db: Db) => Promise<unknown>): Promise<{ sql: string; nodes: PlanNode[] }[]> {
    const captured: RootOperationNode[] = [];
    const spy: KyselyPlugin = {
      transformQuery: (args) => (captured.push(args.node), args.node),
      transformResult: async (args) => args.result,
    };
    await read(db.withPlugin(spy));
    const plans = [];
    const compiled = captured.map((node) => db.getExecutor().compileQuery(node, { queryId: 'plan' } as never));
    for (const q of compiled) {
      if (!/^\s*(select|with)\b/i.test(q.sql) || /\b(insert|update|delete)\b/i.test(q.sql)) continue;
      if (compiled.some((other) => other !== q && other.sql.includes(`(${q.sql})`))) continue; // a subquery
      const r = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]),
      );
      plans.push({ sql: q.sql, nodes: nodesOf(r.rows[0]!['QUERY PLAN'][0].Plan) });
    }
    return plans;
  }

  const seqScans = (plans: { nodes: PlanNode[] }[], table: string) =>
    plans.flatMap((p) => p.nodes).filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table);
  const tablesRead = (plans: { nodes: PlanNode[] }[]) =>
    new Set(plans.flatMap((p) => p.nodes).flatMap((n) => (n['Relation Name'] ? [n['Relation Name']] : [])));

  test('seed: 100,000 subscribers, 200,000 memberships, an event each and 500 of one subscriber', async () => {
    for (let i = 0; i < 10; i++) gs.push((await groups.create(db, acc, { name: `G${i}` })).id);
    // the secondary indexes are built once after the rows (several times faster than row by row)
    const indexes = await sql<{ name: string; def: string }>`
      select i.indexname as name, i.indexdef as def from pg_indexes i
      where i.schemaname = current_schema() and i.tablename in ('subscribers', 'subscriber_groups')
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(db);
    await db.transaction().execute(async (trx) => {
      for (const ix of indexes.rows) await sql`drop index ${sql.id(ix.name)}`.execute(trx);
      await sql`
        insert into subscribers (account_id, email, first_name, last_name, status, custom_fields, created_at)
        select ${acc}::uuid, 'first' || (g % 300) || '.last' || (g % 700) || '.' || g || '@example' || (g % 20) || '.test',
               'First' || (g % 300), 'Last' || (g % 700),
               case when g % 10 = 0 then 'unsubscribed' else 'active' end,
               jsonb_build_object('score', g % 100), now() - g * interval '1 minute'
        from generate_series(1, ${ROWS}::int) g`.execute(trx);
      await sql`
        insert into subscriber_groups (group_id, subscriber_id, account_id)
        select (${gs}::uuid[])[1 + (abs(hashtext(s.email)) + k * 3) % 10], s.id, s.account_id
        from subscribers s cross join (values (0), (1)) as k(k) where s.account_id = ${acc}::uuid`.execute(trx);
      for (const ix of indexes.rows) await sql.raw(ix.def).execute(trx);
    });
    busy = (await subscribers.create(db, acc, { email: 'busy@example.test' })).id;
    await sql`
      insert into events (account_id, type, subscriber_id, data)
      select ${acc}::uuid, 'email.opened', ${busy}::uuid, '{}'::jsonb from generate_series(1, 500)
      union all
      select account_id, 'subscriber.created', id, '{}'::jsonb from subscribers where account_id = ${acc}::uuid`.execute(
      db,
    );
    await sql`analyze subscribers, subscriber_groups, events, subscriber_counts`.execute(db);
    await sql`vacuum subscribers`.execute(db); // the visibility map index-only scans rely on (autovacuum's job)
    assert.equal((await subscribers.stats(db, acc)).total, ROWS + 1);
  });

  for (const [what, search] of [
    ['one word', 'last123'],
    ['a full name', 'first12 last312'],
    ['an email fragment', 'last345.98'],
    ['no match', 'zqxjvw'],
  ] as const)
    test(`search by ${what} reads subscribers through the trigram indexes`, async () => {
      const plans = await plansOf((d) => subscribers.list(d, acc, { search }));
      // few matches: the page and its total in one statement
      assert.equal(plans.length, 1, plans.map((p) => p.sql).join('\n'));
      assert.deepEqual(seqScans(plans, 'subscribers'), [], plans.map((p) => p.sql).join('\n'));
      const indexes = new Set(plans.flatMap((p) => p.nodes).map((n) => n['Index Name']));
      assert.ok(
        [...indexes].some((i) => i?.endsWith('_trgm')),
        `a trigram index in ${[...indexes].join(', ')}`,
      );
      // these match a few hundred rows at most: the page sorts them, it never walks the created index
      assert.ok(!indexes.has('subscribers_account_created'), plans.map((p) => p.sql).join('\n'));
    });

  test('a search the statistics overrate still reads its page from its matches', async () => {
    // 3,000 subscribers named "Orwelliana" when ANALYZE last looked, 3 since a rename: the planner expects
    // thousands of matches and, left to itself, finds 25 by walking the created index from the newest row,
    // filtering each of the 103,000 (the three are the oldest)
    await sql`
      insert into subscribers (account_id, email, first_name, created_at)
      select ${acc}::uuid, 'reader' || g || '@orwell.test', 'Orwelliana', now() - interval '1 year' - g * interval '1 minute'
      from generate_series(1, 3000) g`.execute(db);
    await sql`analyze subscribers`.execute(db);
    await sql`update subscribers set first_name = 'Orwell' where account_id = ${acc}::uuid and email like 'reader%@orwell.test'
      and email not in ('reader1@orwell.test', 'reader2@orwell.test', 'reader3@orwell.test')`.execute(db);
    const plans = await plansOf((d) => subscribers.list(d, acc, { search: 'orwelliana' }));
    const indexes = new Set(plans.flatMap((p) => p.nodes).map((n) => n['Index Name']));
    assert.ok(!indexes.has('subscribers_account_created'), plans.map((p) => p.sql).join('\n'));
    const page = await subscribers.list(db, acc, { search: 'orwelliana', per_page: 2, page: 2 });
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.items.map((s) => s.email),
      ['reader3@orwell.test'],
    );
  });

  test('the first page walks the created index and its total reads the kept counts', async () => {
    const plans = await plansOf((d) => subscribers.list(d, acc, {}));
    assert.deepEqual(seqScans(plans, 'subscribers'), []);
    assert.ok(plans.some((p) => p.nodes.some((n) => n['Index Name'] === 'subscribers_account_created')));
    const total = plans.find((p) => p.sql.includes('subscriber_counts'));
    assert.ok(total, 'the total comes from subscriber_counts');
    assert.ok(!tablesRead([total]).has('subscribers'));
  });

  test('a deep page skips its rows in the index alone', async () => {
    const plans = await plansOf((d) => subscribers.list(d, acc, { page: 1000, per_page: 25 }));
    assert.deepEqual(seqScans(plans, 'subscribers'), []);
    assert.ok(
      plans.some((p) =>
        p.nodes.some((n) => n['Node Type'] === 'Index Only Scan' && n['Index Name'] === 'subscribers_account_created'),
      ),
      plans.map((p) => p.sql).join('\n'),
    );
  });

  test('a group filter and a status filter use indexes; their totals read the kept counts', async () => {
    for (const query of [
      { group_id: gs[3] },
      { status: 'unsubscribed' as const },
      { group_id: gs[3], status: 'active' as const },
    ]) {
      const plans = await plansOf((d) => subscribers.list(d, acc, query));
      assert.deepEqual(seqScans(plans, 'subscribers'), [], JSON.stringify(query));
      assert.deepEqual(seqScans(plans, 'subscriber_groups'), [], JSON.stringify(query));
      assert.ok(
        plans.some((p) => p.sql.includes('subscriber_counts')),
        JSON.stringify(query),
      );
    }
  });

  test('stats, group counts and activity read no table scan', async () => {
    const plans = [
      ...(await plansOf((d) => subscribers.stats(d, acc))),
      ...(await plansOf((d) => subscribers.countByStatus(d, acc))),
      ...(await plansOf((d) => groups.list(d, acc, {}))),
    ];
    assert.ok(!tablesRead(plans).has('subscribers'), 'no subscriber is counted one by one');
    assert.ok(!tablesRead(plans).has('subscriber_groups'), 'no membership is counted one by one');
    const events = await plansOf((d) => activity.ofSubscriber(d, acc, busy, {}));
    assert.deepEqual(seqScans(events, 'events'), []);
  });
});
