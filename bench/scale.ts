// npm run bench -- scale [--reuse] [--skip-pg] [--skip-pglite] [--seconds N] [--only a,b] [--db NAME]
// Every read a user or an agent makes, at scale: 1,000,000 subscribers on PostgreSQL and 100,000 on PGlite
// (custom fields, 20 groups, 3 segments of 3 rules, 2 events per subscriber and one subscriber with 500),
// read through a real server process (`mailgrove serve`, workers off) by 10 concurrent clients. Prints
// p50/p95/p99 of each read against its target (PostgreSQL 1M: p95 < 50 ms; PGlite 100k: p95 < 100 ms;
// the campaign audience count, a dashboard read: p95 < 500 ms).
// Without --reuse the databases are seeded for the run and dropped after; with it the PostgreSQL database
// (--db, default mg_bench_scale) and the PGlite data directory (/tmp/mg_bench_scale_pglite) are kept and
// seeded only when they do not hold the bench account yet (drop them to seed again).
import { existsSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { openDb, type Db, type DbHandle } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import * as accounts from '../src/domain/accounts/accounts.ts';
import * as apiKeys from '../src/domain/accounts/apiKeys.ts';
import * as sessions from '../src/domain/accounts/sessions.ts';
import * as segments from '../src/domain/segments/segments.ts';
import { rebuildKept, withoutIndexes } from './dashboard.ts';
import { fmt, freshDatabase, PG_URL, startServer, type ServerProcess } from './support.ts';

const ACCOUNT = 'Scale bench';
const GROUPS = 20;
const EVENTS_PER_SUBSCRIBER = 2;
const BUSY_EVENTS = 500; // the subscriber whose activity is read
const CLIENTS = 10;
const PGLITE_DIR = '/tmp/mg_bench_scale_pglite';

const FIRST = ['Ada', 'Grace', 'Alan', 'Maria', 'John', 'Linus', 'Emma', 'Noah', 'Olivia', 'Liam', 'Sofia', 'Lucas'];
const FIRST_MORE = Array.from({ length: 188 }, (_, i) => `First${i}`);
const FIRST_NAMES = [...FIRST, ...FIRST_MORE]; // 200
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Curie', ...Array.from({ length: 496 }, (_, i) => `Last${i}`)]; // 500

interface Seeded {
  accountId: string;
  ownerId: string;
  groups: string[];
  segments: string[];
  busy: string; // the subscriber with 500 events
}

interface Store {
  kind: 'postgres' | 'pglite';
  rows: number;
  targetMs: number;
}

export default async function run(args: string[]): Promise<void> {
  const reuse = args.includes('--reuse');
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seconds = Number(opt('seconds') ?? 5);
  const only = opt('only')?.split(',');
  const dbName = opt('db') ?? 'mg_bench_scale';
  if (!args.includes('--skip-pg'))
    await runStore(
      { kind: 'postgres', rows: Number(opt('rows') ?? 1_000_000), targetMs: 50 },
      reuse,
      dbName,
      seconds,
      only,
    );
  if (!args.includes('--skip-pglite'))
    await runStore(
      { kind: 'pglite', rows: Number(opt('pglite-rows') ?? 100_000), targetMs: 100 },
      reuse,
      dbName,
      seconds,
      only,
    );
}

async function runStore(store: Store, reuse: boolean, dbName: string, seconds: number, only?: string[]) {
  let url: string | undefined;
  let drop = async () => {};
  let dataDir: string | undefined;
  if (store.kind === 'postgres') {
    const target = reuse ? await keptDatabase(dbName) : await freshDatabase('mg_bench_scale');
    url = target.url;
    drop = target.drop;
  } else {
    dataDir = reuse ? PGLITE_DIR : `${PGLITE_DIR}_${Date.now().toString(36)}`;
    if (!reuse) drop = async () => rmSync(dataDir!, { recursive: true, force: true });
    console.log(`${existsSync(dataDir) ? 'reusing' : 'creating'} PGlite data directory ${dataDir}`);
  }
  const handle = await openDb({ url, dataDir });
  let seeded: Seeded;
  let key: string;
  let session: string;
  try {
    await migrate(handle.db);
    seeded = (await existing(handle.db)) ?? (await seed(handle, url, store.rows));
    // a key and a session for this run (keys are stored hashed, so a kept database needs a new one)
    key = (await apiKeys.create(handle.db, seeded.accountId, { name: `scale ${Date.now()}`, scopes: ['*'] })).key;
    session = (await sessions.start(handle.db, seeded.ownerId, seeded.accountId, 3_600_000)).token;
  } finally {
    await handle.close(); // PGlite: one process per data directory, and the server is that process
  }
  const server = await startServer({
    ...(url ? { DATABASE_URL: url } : { MAILGROVE_DATA_DIR: dataDir! }),
    WORKERS: 'false',
  });
  try {
    await measureAll(server, store, seeded, key, session, seconds, only);
  } finally {
    await server.stop();
    await drop();
  }
}

async function keptDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (found.rowCount === 0) {
    await admin.query(`create database ${name}`);
    const c = new pg.Client({ connectionString: Object.assign(new URL(PG_URL), { pathname: `/${name}` }).toString() });
    await c.connect();
    await c.query('create extension if not exists citext; create extension if not exists pg_trgm');
    await c.end();
  }
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  console.log(`${found.rowCount === 0 ? 'created' : 'reusing'} database ${name} (kept after the run)`);
  return { url: url.toString(), drop: async () => {} };
}

async function existing(db: Db): Promise<Seeded | undefined> {
  const acc = await db.selectFrom('accounts').select('id').where('name', '=', ACCOUNT).executeTakeFirst();
  if (!acc) return undefined;
  const owner = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('account_id', '=', acc.id)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  const groups = await db.selectFrom('groups').select('id').where('account_id', '=', acc.id).orderBy('name').execute();
  const segs = await db.selectFrom('segments').select('id').where('account_id', '=', acc.id).orderBy('name').execute();
  const busy = await db
    .selectFrom('subscribers')
    .select('id')
    .where('account_id', '=', acc.id)
    .where('email', '=', 'busy@scale.test')
    .executeTakeFirst();
  if (groups.length < GROUPS || segs.length < 3 || !busy) throw new Error('the kept store holds a half-seeded account');
  console.log('seeded data found, not seeding again');
  return {
    accountId: acc.id,
    ownerId: owner.user_id,
    groups: groups.map((g) => g.id),
    segments: segs.map((s) => s.id),
    busy: busy.id,
  };
}

/** Rows inserted by one statement: PostgreSQL through the dashboard bench's drop-and-rebuild of indexes. */
async function bulk(handle: DbHandle, url: string | undefined, table: string, fill: (trx: Db) => Promise<unknown>) {
  if (url) return withoutIndexes(handle.db, url, table, fill);
  const start = Date.now();
  await handle.db.transaction().execute(fill);
  return Date.now() - start;
}

async function seed(handle: DbHandle, url: string | undefined, n: number): Promise<Seeded> {
  const db = handle.db;
  const account = await accounts.create(db, { name: ACCOUNT, subscriber_limit: 2 * n }, 2 * n);
  const id = account.id;
  const t0 = Date.now();
  await sql`
    insert into fields (account_id, key, name, type)
    values (${id}::uuid, 'company', 'Company', 'text'), (${id}::uuid, 'score', 'Score', 'number'),
           (${id}::uuid, 'plan', 'Plan', 'text')`.execute(db);
  // names from 200 first and 500 last names; addresses first.last.n@…; a score 0-99, a plan, a company;
  // 1 in 10 unsubscribed, 1 in 50 bounced, 1 in 200 complained; spread over two years
  const rowsMs = await bulk(handle, url, 'subscribers', (trx) =>
    sql`
      insert into subscribers (account_id, email, first_name, last_name, status, custom_fields, source, created_at, updated_at)
      select ${id}::uuid, lower(f.v || '.' || l.v || '.' || g) || '@example' || (g % 50) || '.test', f.v, l.v,
             case when g % 10 = 0 then 'unsubscribed' when g % 50 = 1 then 'bounced' when g % 200 = 3 then 'complained'
                  else 'active' end,
             jsonb_build_object('company', 'Company ' || (g % 1000), 'score', g % 100,
                                'plan', case when g % 4 = 0 then 'pro' else 'free' end),
             'import', now() - (g % 730) * interval '1 day' - (g % 86400) * interval '1 second',
             now() - (g % 730) * interval '1 day'
      from generate_series(1, ${n}::int) g
        cross join lateral (select (${FIRST_NAMES}::text[])[1 + g % ${FIRST_NAMES.length}] as v) f
        cross join lateral (select (${LAST_NAMES}::text[])[1 + (g / 7) % ${LAST_NAMES.length}] as v) l`.execute(trx),
  );
  const busy = await sql<{ id: string }>`
    insert into subscribers (account_id, email, first_name, last_name, status)
    values (${id}::uuid, 'busy@scale.test', 'Busy', 'Reader', 'active') returning id`.execute(db);
  console.log(`seeded ${fmt(n)} subscribers in ${fmt(Date.now() - t0)} ms (${fmt(rowsMs)} ms the rows)`);

  let t = Date.now();
  const groups: string[] = [];
  for (let i = 0; i < GROUPS; i++) {
    const g = await sql<{ id: string }>`
      insert into groups (account_id, name) values (${id}::uuid, ${`Group ${String(i).padStart(2, '0')}`}) returning id`.execute(
      db,
    );
    groups.push(g.rows[0]!.id);
  }
  // two memberships per subscriber (groups h % 20 and (h + 7) % 20): about 100,000 per group at 1M
  await bulk(handle, url, 'subscriber_groups', (trx) =>
    sql`
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select (${groups}::uuid[])[1 + (abs(hashtext(s.email)) + k * 7) % ${GROUPS}], s.id, s.account_id
      from subscribers s cross join (values (0), (1)) as k(k)
      where s.account_id = ${id}::uuid`.execute(trx),
  );
  console.log(`seeded ${GROUPS} groups in ${fmt(Date.now() - t)} ms`);

  t = Date.now();
  const since = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  const segs = [
    await segments.create(db, id, {
      name: 'A: active, score ≥ 50, joined in the last year',
      filter: {
        match: 'all',
        rules: [
          { field: 'status', operator: 'eq', value: 'active' },
          { field: 'custom_fields.score', operator: 'gte', value: 50 },
          { field: 'created_at', operator: 'after', value: since },
        ],
      },
    }),
    await segments.create(db, id, {
      name: 'B: pro plan in group 0 or 1, not Curie',
      filter: {
        match: 'all',
        rules: [
          { field: 'custom_fields.plan', operator: 'eq', value: 'pro' },
          { field: 'group', operator: 'in', value: [groups[0]!, groups[1]!] },
          { field: 'last_name', operator: 'neq', value: 'Curie' },
        ],
      },
    }),
    await segments.create(db, id, {
      name: 'C: Maria, Ada or Grace at example1',
      filter: {
        match: 'all',
        rules: [
          { field: 'first_name', operator: 'in', value: ['Maria', 'Ada', 'Grace'] },
          { field: 'email', operator: 'contains', value: '@example1' },
          { field: 'status', operator: 'neq', value: 'bounced' },
        ],
      },
    }),
  ];
  console.log(`seeded 3 segments in ${fmt(Date.now() - t)} ms`);

  t = Date.now();
  await bulk(handle, url, 'events', async (trx) => {
    await sql`
      insert into events (account_id, type, subscriber_id, data, created_at)
      select s.account_id, case when k = 0 then 'subscriber.created' else 'email.opened' end, s.id,
             case when k = 0 then jsonb_build_object('source', 'import') else jsonb_build_object('campaign_id', gen_random_uuid()) end,
             s.created_at + k * interval '1 hour'
      from subscribers s cross join generate_series(0, ${EVENTS_PER_SUBSCRIBER - 1}::int) k
      where s.account_id = ${id}::uuid`.execute(trx);
    await sql`
      insert into events (account_id, type, subscriber_id, data, created_at)
      select ${id}::uuid, case when k % 3 = 0 then 'email.clicked' else 'email.opened' end, ${busy.rows[0]!.id}::uuid,
             jsonb_build_object('campaign_id', gen_random_uuid()), now() - k * interval '1 minute'
      from generate_series(1, ${BUSY_EVENTS}::int) k`.execute(trx);
  });
  console.log(`seeded ${fmt(n * EVENTS_PER_SUBSCRIBER + BUSY_EVENTS)} events in ${fmt(Date.now() - t)} ms`);

  t = Date.now();
  await settle(db);
  console.log(`counters rebuilt, search indexes flushed, vacuumed and analysed in ${fmt(Date.now() - t)} ms`);
  return { accountId: id, ownerId: account.owner.id, groups, segments: segs.map((s) => s.id), busy: busy.rows[0]!.id };
}

/** What an installation's own maintenance leaves behind after a bulk load: counters, merged indexes, stats. */
async function settle(db: Db): Promise<void> {
  // the seed ran with triggers off (session_replication_role = replica) on PostgreSQL: rebuild what they keep
  await rebuildKept(db);
  await sql`select gin_clean_pending_list(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
            join pg_am a on a.oid = c.relam where a.amname = 'gin'`.execute(db);
  await sql`vacuum analyze`.execute(db);
}

interface Read {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** dashboard routes take the session cookie, the rest the API key */
  dashboard?: boolean;
  /** before each call, untimed: a write, so the call finds nothing kept (the cold read) */
  afterWrite?: boolean;
  /** each client reads the next page of its own walk through the list (`&page=` added) */
  walk?: boolean;
  targetMs?: number;
}

async function measureAll(
  server: ServerProcess,
  store: Store,
  s: Seeded,
  key: string,
  session: string,
  seconds: number,
  only?: string[],
) {
  const api = '/api/v1/external';
  const mcp = (name: string, args: Record<string, unknown>): Read => ({
    name: `MCP ${name}`,
    method: 'POST',
    path: '/mcp',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  const reads: Read[] = [
    // the floor: the key check and the HTTP round trip alone, what every read below costs at least
    { name: 'floor: GET /test-auth (key only)', method: 'GET', path: `${api}/test-auth` },
    { name: 'list, first page', method: 'GET', path: `${api}/subscribers` },
    { name: 'list, page 1,000', method: 'GET', path: `${api}/subscribers?page=1000` },
    { name: 'list, page 1,000, cold', method: 'GET', path: `${api}/subscribers?page=1000`, afterWrite: true },
    {
      name: 'list, walking on from page 1,000',
      method: 'GET',
      path: `${api}/subscribers?per_page=25`,
      walk: true,
    },
    { name: 'list, status=unsubscribed', method: 'GET', path: `${api}/subscribers?status=unsubscribed` },
    { name: 'list, group filter', method: 'GET', path: `${api}/subscribers?group_id=${s.groups[3]}` },
    { name: 'search, one word (lovelace)', method: 'GET', path: `${api}/subscribers?search=lovelace` },
    { name: 'search, full name (maria curie)', method: 'GET', path: `${api}/subscribers?search=maria%20curie` },
    { name: 'search, email fragment (ada.turing.4)', method: 'GET', path: `${api}/subscribers?search=ada.turing.4` },
    { name: 'search, no match', method: 'GET', path: `${api}/subscribers?search=zqxjvw` },
    // searches are kept between writes: these ask right after one (a note on a subscriber), as in a dashboard
    // of an account that is being written to
    { name: 'search, one word, cold', method: 'GET', path: `${api}/subscribers?search=lovelace`, afterWrite: true },
    {
      name: 'search, email fragment, cold',
      method: 'GET',
      path: `${api}/subscribers?search=ada.turing.4`,
      afterWrite: true,
    },
    { name: 'GET /subscribers/stats', method: 'GET', path: `${api}/subscribers/stats` },
    mcp('get_subscriber_count', {}),
    mcp('list_segments', {}),
    mcp('get_subscribers_in_segment', { segment_id: s.segments[0] }),
    {
      name: 'audience count, 3 groups + 1 segment',
      method: 'POST',
      path: '/app/api/campaigns/audience-count',
      body: { group_ids: s.groups.slice(0, 3), segment_ids: [s.segments[0]] },
      dashboard: true,
      targetMs: 500,
    },
    mcp('list_groups', {}),
    mcp('get_subscriber_activity', { subscriber_id: s.busy }),
    { name: 'dashboard overview', method: 'GET', path: '/app/api/overview', dashboard: true },
  ];
  // keep-alive connections, one per client, and undici's request(): fetch() cost this process about 1 ms of
  // CPU per call, which on two cores it took from the server (the floor read 7.4 ms p50 at 1,100 req/s
  // through fetch, against ~1 ms at 6,000 req/s from autocannon)
  const agent = new Agent({ connections: CLIENTS, keepAliveTimeout: 120_000, pipelining: 1 });
  // the subscriber the cold reads' writes change (each writes an event): one of the newest, not the one
  // whose activity is read
  const newest = await request(`${server.url}${api}/subscribers?per_page=2`, {
    headers: { authorization: `Bearer ${key}` },
    dispatcher: agent,
  });
  const scratch = ((await newest.body.json()) as { data: { subscribers: { id: string }[] } }).data.subscribers.find(
    (x) => x.id !== s.busy,
  )!.id;
  const load = await import('node:os').then((os) => os.loadavg()[0]!.toFixed(1));
  console.log(
    `\n${store.kind}, ${fmt(store.rows)} subscribers, ${CLIENTS} clients, ${seconds} s per read after 1 s of warm-up (load ${load})`,
  );
  console.log(
    `${'read'.padEnd(40)}${'p50'.padStart(9)}${'p95'.padStart(9)}${'p99'.padStart(9)}${'req/s'.padStart(8)}   target`,
  );
  for (const r of reads) {
    if (only && !only.some((o) => r.name.includes(o))) continue;
    const headers: Record<string, string> = r.dashboard
      ? { cookie: `mailgrove_session=${session}`, 'x-mailgrove-csrf': '1' }
      : { authorization: `Bearer ${key}` };
    if (r.body !== undefined) headers['content-type'] = 'application/json';
    if (r.path === '/mcp') headers.accept = 'application/json, text/event-stream';
    // client c walks from page 1,000 + c·step, one page a call, the walks spread over the list's pages
    const step = Math.floor((store.rows / 25 - 2000) / CLIENTS);
    const next = Array.from({ length: CLIENTS }, (_, c) => 1000 + step * c);
    const call = async (client: number) => {
      const res = await request(server.url + r.path + (r.walk ? `&page=${next[client]!++}` : ''), {
        method: r.method,
        headers,
        body: r.body === undefined ? undefined : JSON.stringify(r.body),
        dispatcher: agent,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.includes('"isError":true'))
        throw new Error(`${r.name}: ${res.statusCode} ${text.slice(0, 300)}`);
    };
    const write = async () => {
      const res = await request(`${server.url}${api}/subscribers/${scratch}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ custom_fields: { company: `c${Math.random()}` } }),
        dispatcher: agent,
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`the write before ${r.name}: ${res.statusCode}`);
    };
    const before = r.afterWrite ? write : undefined;
    await call(0); // checks the answer once, and plans it
    const times = await loop(call, 1, before);
    const measured = await loop(call, seconds, before);
    void times;
    measured.sort((a, b) => a - b);
    const p = (q: number) => measured[Math.min(measured.length - 1, Math.floor(q * measured.length))]!;
    const target = r.targetMs ?? store.targetMs;
    const verdict = p(0.95) < target ? 'ok' : 'OVER';
    console.log(
      `${r.name.padEnd(40)}${`${p(0.5).toFixed(1)}`.padStart(9)}${`${p(0.95).toFixed(1)}`.padStart(9)}${`${p(0.99).toFixed(1)}`.padStart(9)}${(measured.length / seconds).toFixed(0).padStart(8)}   < ${target} ms ${verdict}`,
    );
  }
  await agent.close();
}

/** CLIENTS concurrent loops calling `call` for `seconds`; the milliseconds of every call. */
async function loop(
  call: (client: number) => Promise<void>,
  seconds: number,
  before?: () => Promise<void>,
): Promise<number[]> {
  const end = performance.now() + seconds * 1000;
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < end) {
        if (before) await before();
        const start = performance.now();
        await call(client);
        times.push(performance.now() - start);
      }
    }),
  );
  return times;
}
