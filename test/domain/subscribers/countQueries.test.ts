// The subscriber counts the database keeps (migration 20261126_1200, subscribers/countQueries.ts) always
// equal a count of the rows themselves: per account and per group, by status, after every kind of write
// (create, update, status change, memberships replaced, assign and unassign, bulk actions, import-style
// upserts, delete with its cascades, group and account deletes), run concurrently, with compactions in
// between. The same writes keep each subscriber's member_of (migration 20261127_0900) equal to its
// memberships. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL, where the writes really overlap.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/client.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { NotFound } from '../../../src/domain/errors.ts';
import * as bulk from '../../../src/domain/subscribers/bulk.ts';
import * as counts from '../../../src/domain/subscribers/countQueries.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

/** What the counters say and what the rows say, as sorted "group|status=n" lines (group '-' = account). */
async function compare(accountId: string): Promise<{ kept: string[]; rows: string[] }> {
  const kept = await sql<{ k: string }>`
    select coalesce(group_id::text, '-') || '|' || status || '=' || sum(n) as k from subscriber_counts
    where account_id = ${accountId}::uuid group by group_id, status having sum(n) <> 0`.execute(db);
  const rows = await sql<{ k: string }>`
    select '-|' || status || '=' || count(*) as k from subscribers where account_id = ${accountId}::uuid group by status
    union all
    select sg.group_id::text || '|' || s.status || '=' || count(*) from subscriber_groups sg
      join subscribers s on s.id = sg.subscriber_id
    where sg.account_id = ${accountId}::uuid group by sg.group_id, s.status`.execute(db);
  return { kept: kept.rows.map((r) => r.k).sort(), rows: rows.rows.map((r) => r.k).sort() };
}

/** Subscribers whose member_of, less deleted groups, is not their memberships (or repeats an id). */
async function memberOfMismatches(accountId: string): Promise<string[]> {
  const r = await sql<{ line: string }>`
    select s.email || ' ' || s.member_of::text || ' ' || coalesce(m.ids::text, '{}') as line from subscribers s
      left join lateral (select array_agg(sg.group_id order by sg.group_id) as ids from subscriber_groups sg
        where sg.subscriber_id = s.id) m on true
    where s.account_id = ${accountId}::uuid
      and (array(select g from unnest(s.member_of) g where exists (select 1 from groups where id = g) order by g)
             is distinct from coalesce(m.ids, '{}')
        or cardinality(s.member_of) <> (select count(distinct g) from unnest(s.member_of) g))`.execute(db);
  return r.rows.map((x) => x.line);
}

async function assertExact(accountId: string) {
  const { kept, rows } = await compare(accountId);
  assert.deepEqual(kept, rows);
  assert.deepEqual(await memberOfMismatches(accountId), []);
}

const STATUSES = ['active', 'unsubscribed'] as const;

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

async function setup(name: string) {
  const acc = (await accounts.create(db, { name }, 100_000)).id;
  const gs = [];
  for (let i = 0; i < 3; i++) gs.push((await groups.create(db, acc, { name: `G${i}` })).id);
  return { acc, gs };
}

describe('subscriber counts kept by the database', () => {
  test('equal the rows after concurrent creates, updates, memberships, bulk actions, upserts and deletes', async () => {
    const { acc, gs } = await setup('Counts under concurrent writes');
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await subscribers.create(db, acc, { email: `seed${i}@example.com`, group_ids: [gs[i % 3]!] })).id);
    await assertExact(acc);

    const random = rng(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    let n = 0;
    const op = async (): Promise<unknown> => {
      const kind = Math.floor(random() * 9);
      const id = pick(ids);
      // a subscriber deleted by another writer meanwhile: not found, or the foreign key of a membership
      const ignoreGone = (e: unknown) => {
        if (!(e instanceof NotFound) && (e as { code?: string }).code !== '23503') throw e;
      };
      switch (kind) {
        case 0: {
          const s = await subscribers.create(db, acc, {
            email: `c${n++}@example.com`,
            group_ids: random() < 0.5 ? [pick(gs)] : [pick(gs), pick(gs)].filter((g, i, a) => a.indexOf(g) === i),
          });
          ids.push(s.id);
          return;
        }
        case 1:
          return subscribers.update(db, acc, id, { status: pick(STATUSES) }).catch(ignoreGone);
        case 2:
          return subscribers.update(db, acc, id, { group_ids: random() < 0.3 ? [] : [pick(gs)] }).catch(ignoreGone);
        case 3:
          return groups.assign(db, acc, pick(gs), id).catch(ignoreGone);
        case 4:
          return groups.unassign(db, acc, pick(gs), id).catch(ignoreGone);
        case 5:
          return subscribers.remove(db, acc, id).catch(ignoreGone);
        case 6:
          return bulk
            .apply(db, acc, {
              action: pick(['add_to_group', 'remove_from_group', 'unsubscribe'] as const),
              group_id: pick(gs),
              ids: [pick(ids), pick(ids), pick(ids)],
            })
            .catch(ignoreGone);
        case 7:
          // an import-style upsert: new rows and status changes of existing ones in one statement
          return sql`
            insert into subscribers (account_id, email, status)
            values (${acc}::uuid, ${`u${n++}@example.com`}, 'active'),
                   ((select account_id from subscribers where id = ${id}::uuid), (select email from subscribers where id = ${id}::uuid), ${pick(STATUSES)})
            on conflict (account_id, lower(email)) do update set status = excluded.status`
            .execute(db)
            .catch((e: { code?: string }) => {
              if (e.code !== '23502') throw e; // the picked subscriber was deleted meanwhile
            });
        default:
          return counts.compact(db, acc);
      }
    };
    // 10 writers at once, 300 operations
    for (let round = 0; round < 30; round++) await Promise.all(Array.from({ length: 10 }, op));
    await assertExact(acc);
    const before = await counts.byStatus(db, acc);
    await counts.compact(db, acc);
    assert.deepEqual(await counts.byStatus(db, acc), before);
    await assertExact(acc);
    const rows = await sql<{ n: number }>`
      select count(*)::int as n from subscriber_counts where account_id = ${acc}::uuid`.execute(db);
    assert.ok(rows.rows[0]!.n <= 3 * 4 + 4, `compacted to one row per key, found ${rows.rows[0]!.n}`);
  });

  test('a status change and a membership change of the same subscriber in two overlapping transactions', async () => {
    const { acc, gs } = await setup('Counts, overlapping transactions');
    for (let i = 0; i < 6; i++) {
      const s = await subscribers.create(db, acc, { email: `o${i}@example.com`, group_ids: [gs[0]!] });
      const slow = (first: (trx: Db) => Promise<unknown>) =>
        db.transaction().execute(async (trx) => {
          await first(trx);
          await sql`select pg_sleep(0.05)`.execute(trx);
        });
      const statusChange = (trx: Db) =>
        sql`update subscribers set status = 'unsubscribed' where id = ${s.id}::uuid`.execute(trx);
      const join = (trx: Db) =>
        sql`insert into subscriber_groups (group_id, subscriber_id, account_id) values (${gs[1]}::uuid, ${s.id}::uuid, ${acc}::uuid) on conflict do nothing`.execute(
          trx,
        );
      const leave = (trx: Db) =>
        sql`delete from subscriber_groups where group_id = ${gs[0]}::uuid and subscriber_id = ${s.id}::uuid`.execute(
          trx,
        );
      const joinOther = (trx: Db) =>
        sql`insert into subscriber_groups (group_id, subscriber_id, account_id) values (${gs[2]}::uuid, ${s.id}::uuid, ${acc}::uuid) on conflict do nothing`.execute(
          trx,
        );
      // each order: the status change first and the membership change while it is open, and the reverse
      const [a, b] =
        i % 2 === 0 ? [statusChange, i % 4 === 0 ? join : leave] : [i % 4 === 1 ? join : leave, statusChange];
      await Promise.all([slow(a), new Promise((r) => setTimeout(r, 10)).then(() => slow(b))]);
      await assertExact(acc);
      // two membership changes of one subscriber at once: each writes member_of from the row the other left
      const [c, d] = i % 2 === 0 ? [join, joinOther] : [leave, joinOther];
      await Promise.all([slow(c), new Promise((r) => setTimeout(r, 10)).then(() => slow(d))]);
      await assertExact(acc);
    }
  });

  test('deleting a group, subscribers with memberships, and the account itself', async () => {
    const { acc, gs } = await setup('Counts, deletes');
    const a = await subscribers.create(db, acc, { email: 'a@example.com', group_ids: gs });
    await subscribers.create(db, acc, { email: 'b@example.com', group_ids: [gs[0]!] });
    await subscribers.update(db, acc, a.id, { status: 'unsubscribed' });
    await assertExact(acc);
    assert.deepEqual(
      [(await groups.get(db, acc, gs[0]!)).subscriber_count, (await groups.get(db, acc, gs[0]!)).active_count],
      [2, 1],
    );
    await subscribers.remove(db, acc, a.id); // its three memberships go by the cascade
    await assertExact(acc);
    await groups.remove(db, acc, gs[0]!);
    await assertExact(acc);
    // the deleted group's id stays on its former members' rows (no row is rewritten for a group's delete)
    const kept = await sql<{ n: number }>`
      select count(*)::int as n from subscribers where account_id = ${acc}::uuid and ${gs[0]}::uuid = any(member_of)`.execute(
      db,
    );
    assert.equal(kept.rows[0]!.n, 1);
    await bulk.apply(db, acc, { action: 'delete', filter: {} });
    await assertExact(acc);
    assert.deepEqual(await counts.byStatus(db, acc), { active: 0, unsubscribed: 0, bounced: 0, complained: 0 });
    await sql`delete from accounts where id = ${acc}::uuid`.execute(db);
    // what a cascade may still write for the deleted account sums to nothing
    const left = await sql<{ n: number }>`
      select count(*)::int as n from (select 1 from subscriber_counts where account_id = ${acc}::uuid
        group by group_id, status having sum(n) <> 0) k`.execute(db);
    assert.equal(left.rows[0]!.n, 0);
  });
});
