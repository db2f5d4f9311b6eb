// npm run bench -- dashboard [--reuse]: the dashboard's heaviest campaign reads on PostgreSQL at 1,000,000
// subscribers — the campaign list with rates, the audience count for 3 groups + 1 segment, and the
// overview — called through the same domain functions the routes call. Prints p50/p95 of each; the target
// is < 500 ms each. Without --reuse a fresh database is seeded and dropped after; with it the database
// mg_bench_dashboard is kept, and seeded only when it does not hold the bench account yet.
import { sql } from 'kysely';
import pg from 'pg';
import type { ChangeClock } from '../src/db/changeClock.ts';
import { openDb, type Db } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import * as accounts from '../src/domain/accounts/accounts.ts';
import { audienceCount } from '../src/domain/campaigns/ledger.ts';
import { overview } from '../src/domain/campaigns/overview.ts';
import * as rows from '../src/domain/campaigns/rows.ts';
import * as segments from '../src/domain/segments/segments.ts';
import * as subscribers from '../src/domain/subscribers/subscribers.ts';
import { hashEmail } from '../src/domain/subscribers/suppressions.ts';
import { fmt, freshDatabase, PG_URL } from './support.ts';

const SUBSCRIBERS = 1_000_000;
const SENT_CAMPAIGNS = 3;
const LEDGER_ROWS = 200_000; // per sent campaign
const FORGOTTEN = 1_000; // suppressed addresses, of which READDED came back as subscribers
const READDED = 100;
const RUNS = 20;
const TARGET_MS = 500;
const SECRET = 'bench-secret';
const KEPT = 'mg_bench_dashboard';
const ACCOUNT = 'Dashboard bench';

interface Seeded {
  id: string;
  groups: string[];
  segment: string;
}

export default async function run(args: string[]): Promise<void> {
  const reuse = args.includes('--reuse');
  const target = reuse ? await keptDatabase() : await freshDatabase('mg_bench_dash');
  const handle = await openDb({ url: target.url });
  const db = handle.db;
  try {
    await migrate(db);
    const seeded = (await existing(db)) ?? (await seed(db, target.url));
    // the read cache trusts the clock once the change listener is connected
    while (!handle.changes.reliable) await new Promise((r) => setTimeout(r, 50));
    await time(db, handle.changes, seeded);
  } finally {
    await handle.close();
    if (!reuse) await target.drop();
  }
}

async function keptDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const found = await admin.query('select 1 from pg_database where datname = $1', [KEPT]);
  if (found.rowCount === 0) await admin.query(`create database ${KEPT}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${KEPT}`;
  console.log(`${found.rowCount === 0 ? 'created' : 'reusing'} database ${KEPT} (kept after the run)`);
  return { url: url.toString(), drop: async () => {} };
}

async function existing(db: Db): Promise<Seeded | undefined> {
  const acc = await db.selectFrom('accounts').select('id').where('name', '=', ACCOUNT).executeTakeFirst();
  if (!acc) return undefined;
  const groups = await db.selectFrom('groups').select('id').where('account_id', '=', acc.id).orderBy('name').execute();
  const segment = await db.selectFrom('segments').select('id').where('account_id', '=', acc.id).executeTakeFirst();
  if (groups.length < 4 || !segment) throw new Error(`${KEPT} holds a half-seeded account: drop the database`);
  console.log('seeded data found, not seeding again');
  return { id: acc.id, groups: groups.map((g) => g.id), segment: segment.id };
}

async function seed(db: Db, url: string): Promise<Seeded> {
  const account = await accounts.create(db, { name: ACCOUNT, subscriber_limit: 2_000_000 }, 2_000_000);
  const id = account.id;
  let t = Date.now();
  // spread over a year, a few hundred a day in the last 30 days; every tenth one unsubscribed
  const rowsMs = await withoutIndexes(db, url, 'subscribers', (trx) =>
    sql`
      insert into subscribers (account_id, email, first_name, status, created_at)
      select ${id}::uuid, 'user' || g || '@bench.test', 'Name' || g,
             case when g % 10 = 0 then 'unsubscribed' else 'active' end,
             now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second'
      from generate_series(1, ${SUBSCRIBERS}::int) g`.execute(trx),
  );
  console.log(`seeded ${fmt(SUBSCRIBERS)} subscribers in ${fmt(Date.now() - t)} ms (${fmt(rowsMs)} ms the rows)`);

  t = Date.now();
  const groups: string[] = [];
  for (let i = 0; i < 4; i++) {
    const g = await sql<{ id: string }>`
      insert into groups (account_id, name) values (${id}::uuid, ${`Group ${i}`}) returning id`.execute(db);
    groups.push(g.rows[0]!.id);
  }
  // groups of about 500,000, each overlapping the next by half (group i holds the residues 2i to 2i+3 of 8);
  // groups 0-2 together hold everyone. One statement for all four.
  await withoutIndexes(db, url, 'subscriber_groups', (trx) =>
    sql`
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select g.id, s.id, s.account_id
      from subscribers s join unnest(${groups}::uuid[]) with ordinality as g(id, i)
        on (abs(hashtext(s.email)) % 8 - 2 * (g.i - 1) + 8) % 8 < 4
      where s.account_id = ${id}::uuid`.execute(trx),
  );
  const segment = await segments.create(db, id, {
    name: 'Named 1…',
    filter: { match: 'all', rules: [{ field: 'first_name', operator: 'starts_with', value: 'Name1' }] },
  });
  // forgotten addresses (only their hashes are kept), a tenth of them added back by hand into group 0: the
  // audience must leave those out
  const forgotten = Array.from({ length: FORGOTTEN }, (_, i) => `forgotten${i}@bench.test`);
  await sql`
    insert into suppressions (account_id, email_hash, reason)
    select ${id}::uuid, h, 'forgotten' from unnest(${forgotten.map((e) => hashEmail(SECRET, e))}::text[]) h`.execute(
    db,
  );
  await sql`
    with s as (
      insert into subscribers (account_id, email, status, created_at)
      select ${id}::uuid, e, 'active', now() from unnest(${forgotten.slice(0, READDED)}::text[]) e returning id
    ) insert into subscriber_groups (group_id, subscriber_id, account_id) select ${groups[0]}::uuid, id, ${id}::uuid from s`.execute(
    db,
  );
  console.log(
    `seeded 4 groups, 1 segment, ${fmt(FORGOTTEN)} suppressions (${READDED} added back) in ${fmt(Date.now() - t)} ms`,
  );

  t = Date.now();
  for (let c = 0; c < 30; c++) {
    // the newest campaigns are the sent ones, so the list's first page and the overview's recent five show them
    const sent = c >= 30 - SENT_CAMPAIGNS;
    const r = await sql<{ id: string }>`
      insert into campaigns (account_id, name, subject, content_html, group_ids, status, started_at, finished_at, created_at)
      values (${id}::uuid, ${`Campaign ${c}`}, 'Hello', '<p>Hi</p>', ${sql.raw(`array['${groups[c % 4]}']::uuid[]`)},
              ${sent ? 'sent' : 'draft'}, ${sent ? sql`now() - ${30 - c} * interval '1 day'` : null}, ${sent ? sql`now()` : null},
              now() - ${30 - c} * interval '1 hour')
      returning id`.execute(db);
    if (!sent) continue;
    const offset = (30 - 1 - c) * LEDGER_ROWS;
    await sql`
      insert into campaign_recipients (campaign_id, account_id, subscriber_id, email, state, sent_at, opens, opened_at, clicks, clicked_at, bounced_at)
      select ${r.rows[0]!.id}::uuid, s.account_id, s.id, s.email, 'sent', now(),
             (s.n % 3 = 0)::int, case when s.n % 3 = 0 then now() end,
             (s.n % 9 = 0)::int, case when s.n % 9 = 0 then now() end,
             case when s.n % 200 = 0 then now() end
      from (select id, account_id, email, row_number() over () as n from subscribers
            where account_id = ${id}::uuid limit ${LEDGER_ROWS}::int offset ${offset}::int) s`.execute(db);
  }
  await rebuildKept(db);
  await sql`vacuum analyze`.execute(db);
  console.log(
    `seeded 30 campaigns, the ${SENT_CAMPAIGNS} newest sent with ${fmt(LEDGER_ROWS)} ledger rows each, and vacuumed, in ${fmt(Date.now() - t)} ms`,
  );
  return { id, groups, segment: segment.id };
}

/**
 * What the triggers keep, rebuilt after a seed that ran with them off (session_replication_role = replica):
 * the subscriber and campaign counts and each subscriber's member_of (where this schema has them). The member_of
 * rebuild updates every subscriber row, leaving a dead version of each (the table twice its size, which
 * plain VACUUM does not give back), where an installation's imports write member_of with the row: VACUUM
 * FULL compacts the table as such imports leave it.
 */
export async function rebuildKept(db: Db): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select proname as name from pg_proc
    where proname in ('subscriber_counts_rebuild', 'subscriber_member_of_rebuild', 'campaign_counts_rebuild')`.execute(
    db,
  );
  const has = new Set(rows.map((r) => r.name));
  if (has.has('subscriber_counts_rebuild')) await sql`select subscriber_counts_rebuild()`.execute(db);
  if (has.has('campaign_counts_rebuild')) await sql`select campaign_counts_rebuild()`.execute(db);
  if (has.has('subscriber_member_of_rebuild')) {
    await sql`select subscriber_member_of_rebuild()`.execute(db);
    await sql`vacuum full subscribers`.execute(db);
  }
}

// Building a table's secondary indexes once over all its rows is several times faster than growing them
// row by row (the three trigram indexes on subscribers above all): they are dropped, the rows inserted, and
// the indexes built again from their own definitions (so they stay the migrations'), one CREATE INDEX per
// connection on two connections, the machine's two cores. Returns the milliseconds the insert took.
export async function withoutIndexes(
  db: Db,
  url: string,
  table: string,
  fill: (trx: Db) => Promise<unknown>,
): Promise<number> {
  const indexes = await sql<{ name: string; def: string }>`
    select i.indexname as name, i.indexdef as def from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = ${table}
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(db);
  for (const ix of indexes.rows) await sql`drop index ${sql.id(ix.name)}`.execute(db);
  const start = Date.now();
  // the generated rows are consistent by construction: a superuser skips the foreign-key check of each row
  // (3 per membership), which took most of the time
  const { rows } = await sql<{ su: boolean }>`select rolsuper as su from pg_roles where rolname = current_user`.execute(
    db,
  );
  await db.transaction().execute(async (trx) => {
    if (rows[0]?.su) await sql`set local session_replication_role = replica`.execute(trx);
    await fill(trx);
  });
  const inserted = Date.now() - start;
  const queue = indexes.rows.map((r) => r.def);
  await Promise.all(
    [0, 1].map(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`set maintenance_work_mem = '256MB'`);
      for (let def = queue.shift(); def; def = queue.shift()) await c.query(def);
      await c.end();
    }),
  );
  return inserted;
}

/**
 * Each read twice: "cold", as the first read after a write (the change clock moved before every call, so
 * nothing the read cache keeps is served), and "kept", as ten dashboards read between writes.
 */
async function time(db: Db, clock: ChangeClock, { id, groups, segment }: Seeded): Promise<void> {
  const audience = { groups: groups.slice(0, 3), segments: [segment] };
  const count = () => audienceCount(db, SECRET, id, audience.groups, audience.segments);
  // every seeded subscriber is in group 0, 1 or 2: the active ones, less the addresses added back after forget
  const expected = SUBSCRIBERS - SUBSCRIBERS / 10;
  const first = performance.now();
  const got = await count();
  console.log(
    `audience count: ${fmt(got)} (expected ${fmt(expected)}); first call ${fmt(performance.now() - first)} ms`,
  );
  if (got !== expected) throw new Error('the audience count is wrong');

  const cases: [string, () => Promise<unknown>][] = [
    ['campaign list (25 rows with rates)', () => rows.page(db, id, { per_page: 25 })],
    ['audience count (3 groups + 1 segment)', count],
    [
      'overview (counts, growth, recent, rates)',
      async () => {
        // as the route does: the counts and the rest at once
        const counts = subscribers.stats(db, id);
        return Promise.all([
          counts,
          overview(
            db,
            id,
            counts.then((c) => c.total),
          ),
        ]);
      },
    ],
  ];
  console.log(`\n${'read'.padEnd(44)}${'p50'.padStart(10)}${'p95'.padStart(10)}   target < ${TARGET_MS} ms`);
  for (const [name, fn] of cases) {
    for (const cold of [true, false]) {
      await fn(); // warm the plan (and, for "kept", the cache)
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        if (cold) clock.tick();
        const start = performance.now();
        await fn();
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
      const verdict = p(0.95) < TARGET_MS ? 'ok' : 'OVER';
      const label = `${name}, ${cold ? 'cold' : 'kept'}`;
      console.log(
        `${label.padEnd(44)}${`${fmt(p(0.5))} ms`.padStart(10)}${`${fmt(p(0.95))} ms`.padStart(10)}   ${verdict}`,
      );
    }
  }
}
