// npm run bench -- load [--seconds 60] [--clients 50] [--skip-send] [--db mg_load_bench] [--skip-pglite]
//                       [--skip-pg] [--keep] [--rows 20000] [--recipients 10000] [--baseline-seconds N]
//                       [--only kind,kind…]   (a part of the mix, e.g. --only search,get)
// A mixed load as an integrator's traffic looks: N concurrent keep-alive clients, each looping over REST
// creates, updates, gets by id, the first page, searches, and MCP tools/call (get_subscriber,
// get_subscriber_count), against a real server process (`mailgrove serve`, workers on) over a seeded
// account (20,000 subscribers, custom fields, groups). In the same run the baseline: the same clients doing
// only GET /test-auth (the key alone), before and after the mixed load; prints req/s, p50/p95/p99 overall
// and per kind, errors, and mixed req/s ÷ baseline req/s. Unless --skip-send, a campaign to 10,000
// recipients goes to an smtp-server sink (in a process of its own, like bench/send.ts) once idle and once
// under the mixed load. Targets: ≥ 2,000 req/s, p99 < 100 ms, the send under load ≤ 2× the idle send.
// On PostgreSQL the bench samples pg_stat_activity of its database every second and prints where the
// server's sessions were (running, waiting on a lock and whose, idle in a transaction), plus the CPU of the
// server, of PostgreSQL's backends for the database and of the bench itself; and, from GET /metrics every
// 2 s, the server's event-loop delay and its pool's idle connections and waiting queries. Also on PostgreSQL,
// the floor: a no-op statement's round trip from the bench, and what a mixed request costs in round trips.
// The PostgreSQL database (--db, default mg_load_bench) is dropped and created at the start of each run and
// dropped after it (--keep leaves it for inspection); no other database is touched (--db must be named
// mg_…bench…). PGlite: a temp data dir.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
// undici is in node_modules through cheerio (mjml's juice); its request() costs the bench far less CPU
// per call than fetch(), which matters when the bench shares two cores with the server and PostgreSQL
import { Agent, request } from 'undici';
import { openDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import * as accounts from '../src/domain/accounts/accounts.ts';
import * as apiKeys from '../src/domain/accounts/apiKeys.ts';
import { startSinkProcess, type Sink } from './sinkProcess.ts';
import { fmt, PG_URL, settle, startServer, type ServerProcess } from './support.ts';

const TARGET_RPS = 2000;
const TARGET_P99_MS = 100;
const TARGET_SEND_RATIO = 2;
const INTEREST_GROUPS = 4;
// names as in bench/scale.ts: 200 first and 500 last names, so a name matches 0.5 % or 0.2 % of the rows
const FIRST = [
  ...['Ada', 'Grace', 'Alan', 'Maria', 'John', 'Linus', 'Emma', 'Noah', 'Olivia', 'Liam', 'Sofia', 'Lucas'],
  ...Array.from({ length: 188 }, (_, i) => `First${i}`),
];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Curie', ...Array.from({ length: 496 }, (_, i) => `Last${i}`)];
// what people type into a search box: a last name, a first name, both, a whole or partial address, a miss
const SEARCHES = ['lovelace', 'hopper', 'grace', 'maria curie', 'first42', 'last117', '.4711@', 'zqxjvw'];

/** The traffic mix, in parts per hundred. */
const MIX = [
  ['get', 25],
  ['list', 10],
  ['search', 10],
  ['create', 15],
  ['update', 15],
  ['mcp get_subscriber', 15],
  ['mcp get_subscriber_count', 10],
] as const;
type Kind = (typeof MIX)[number][0] | 'baseline';

const HTML =
  '<html><body><h1>Hello {{ subscriber.first_name | default: "there" }}</h1>' +
  '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(
    10,
  ) +
  '<p><a href="https://example.org/news">Read more</a> · <a href="https://example.org/shop">Shop</a></p>' +
  '<p>{{ subscriber.custom_fields.company }}</p></body></html>';

interface Options {
  seconds: number;
  baselineSeconds: number;
  clients: number;
  rows: number;
  recipients: number;
  send: boolean;
  only?: string[];
}

export default async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '60' },
      // each of the two baseline rounds (before and after the mixed load)
      'baseline-seconds': { type: 'string' },
      clients: { type: 'string', default: '50' },
      rows: { type: 'string', default: '20000' },
      recipients: { type: 'string', default: '10000' },
      db: { type: 'string', default: 'mg_load_bench' },
      keep: { type: 'boolean' },
      // a subset of the mix, each kind keeping its weight: e.g. --only create,update to see what writes cost
      only: { type: 'string' },
      'skip-send': { type: 'boolean' },
      'skip-pg': { type: 'boolean' },
      'skip-pglite': { type: 'boolean' },
    },
  });
  const seconds = Number(values.seconds);
  const opts: Options = {
    seconds,
    baselineSeconds: Number(values['baseline-seconds'] ?? Math.max(5, Math.round(seconds / 6))),
    clients: Number(values.clients),
    rows: Number(values.rows),
    recipients: Number(values.recipients),
    send: !values['skip-send'],
    only: values.only?.split(',').filter(Boolean),
  };
  const unknown = opts.only?.filter((k) => !MIX.some(([kind]) => kind === k));
  if (unknown?.length)
    throw new Error(`--only: no kind ${unknown.join(', ')} (kinds: ${MIX.map(([k]) => k).join(', ')})`);
  if (opts.recipients > opts.rows) throw new Error('--recipients must not exceed --rows');
  const sink = opts.send ? await startSinkProcess() : undefined;
  try {
    if (!values['skip-pg']) {
      const db = await recreateDatabase(values.db!);
      try {
        await benchOn('PostgreSQL', { DATABASE_URL: db.url }, { url: db.url }, opts, sink, values.db!);
      } finally {
        if (values.keep) console.log(`database ${values.db} kept (--keep)`);
        else await db.drop();
      }
    }
    if (!values['skip-pglite']) {
      const dir = mkdtempSync(join(tmpdir(), 'mailgrove-bench-load-'));
      try {
        await benchOn('PGlite', { DATABASE_URL: '', MAILGROVE_DATA_DIR: dir }, { dataDir: dir }, opts, sink);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    sink?.child.kill();
  }
}

/** Drops and creates the bench's own database (and only it), with the extensions the schema needs. */
async function recreateDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  // a guard against --db naming a database that is not a bench's: never drop anything else
  if (!/^mg_[a-z0-9_]*bench[a-z0-9_]*$/.test(name))
    throw new Error(`--db ${name}: a bench database name is mg_…bench… (lower case, digits, _)`);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = Object.assign(new URL(PG_URL), { pathname: `/${name}` }).toString();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('create extension citext; create extension pg_trgm');
  await c.end();
  return {
    url,
    async drop() {
      const a = new pg.Client({ connectionString: PG_URL });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

interface Seeded {
  key: string;
  ids: string[];
  interestGroups: string[];
  audienceGroup: string;
}

/** The account, a key with every scope, fields, groups and `rows` subscribers, before the server opens the store. */
async function seed(store: { url?: string; dataDir?: string }, opts: Options): Promise<Seeded> {
  const handle = await openDb(store);
  try {
    await migrate(handle.db);
    const t0 = Date.now();
    const account = await accounts.create(
      handle.db,
      { name: 'Load bench', owner_email: `load-bench-${Date.now()}@example.com`, subscriber_limit: 10_000_000 },
      10_000_000,
    );
    const id = account.id;
    const { key } = await apiKeys.create(handle.db, id, { name: 'load bench', scopes: ['*'] });
    await sql`
      insert into fields (account_id, key, name, type)
      values (${id}::uuid, 'company', 'Company', 'text'), (${id}::uuid, 'score', 'Score', 'number'),
             (${id}::uuid, 'plan', 'Plan', 'text')`.execute(handle.db);
    const groupIds: string[] = [];
    for (const name of ['Send audience', ...Array.from({ length: INTEREST_GROUPS }, (_, i) => `Interest ${i}`)]) {
      const g = await sql<{ id: string }>`
        insert into groups (account_id, name) values (${id}::uuid, ${name}) returning id`.execute(handle.db);
      groupIds.push(g.rows[0]!.id);
    }
    const [audienceGroup, ...interestGroups] = groupIds as [string, ...string[]];
    // one set-based statement (the count triggers stay on: one statement, one delta row per key)
    await sql`
      insert into subscribers (account_id, email, first_name, last_name, custom_fields, source, created_at, updated_at)
      select ${id}::uuid, lower(f.v || '.' || l.v || '.' || g) || '@example' || (g % 50) || '.test', f.v, l.v,
             jsonb_build_object('company', 'Company ' || (g % 500), 'score', g % 100,
                                'plan', case when g % 4 = 0 then 'pro' else 'free' end),
             'import', now() - g * interval '1 minute', now() - g * interval '1 minute'
      from generate_series(1, ${opts.rows}::int) g
        cross join lateral (select (${FIRST}::text[])[1 + g % ${FIRST.length}] as v) f
        cross join lateral (select (${LAST}::text[])[1 + (g / 7) % ${LAST.length}] as v) l`.execute(handle.db);
    // the first `recipients` (by address) form the campaign's audience; everyone is in one interest group
    await sql`
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select ${audienceGroup}::uuid, s.id, s.account_id from subscribers s
      where s.account_id = ${id}::uuid order by s.email limit ${opts.recipients}`.execute(handle.db);
    await sql`
      insert into subscriber_groups (group_id, subscriber_id, account_id)
      select (${interestGroups}::uuid[])[1 + abs(hashtext(s.email)) % ${INTEREST_GROUPS}], s.id, s.account_id
      from subscribers s where s.account_id = ${id}::uuid`.execute(handle.db);
    // what autovacuum would soon do after a bulk load (PGlite has none): merge GIN pending lists, statistics
    await sql`select gin_clean_pending_list(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
              join pg_am a on a.oid = c.relam where a.amname = 'gin'`.execute(handle.db);
    await sql`vacuum analyze`.execute(handle.db);
    const { rows } = await sql<{ id: string }>`
      select id from subscribers where account_id = ${id}::uuid`.execute(handle.db);
    console.log(
      `seeded ${fmt(opts.rows)} subscribers, 3 custom fields, ${INTEREST_GROUPS + 1} groups (audience ${fmt(opts.recipients)}) in ${((Date.now() - t0) / 1000).toFixed(1)} s (${handle.kind})`,
    );
    return { key, ids: rows.map((r) => r.id), interestGroups, audienceGroup };
  } finally {
    await handle.close(); // PGlite: one process per data directory, and the server is that process
  }
}

async function benchOn(
  name: string,
  env: Record<string, string>,
  store: { url?: string; dataDir?: string },
  opts: Options,
  sink: Sink | undefined,
  dbName?: string,
): Promise<void> {
  const seeded = await seed(store, opts);
  const server = await startServer({
    ...env,
    WORKERS: 'true',
    REST_RATE_LIMIT: '1000000000',
    MCP_RATE_LIMIT: '1000000000',
    ...(sink && { SMTP_URL: sink.url, ALLOW_INSECURE_PUBLIC_URL: 'true' }),
    WORKER_POLL_MS: '200',
    // per-provider throttling stays on, its limits raised out of the way (every recipient is one provider)
    PROVIDER_LIMITS: '{"*":{"concurrency":1000,"per_second":1000000}}',
  });
  const agent = new Agent({ connections: opts.clients + 8, keepAliveTimeout: 120_000, pipelining: 1 });
  const client = new Client(server.url, seeded, agent, opts.only);
  const monitor = dbName ? await ActivityMonitor.open(store.url!, dbName) : undefined;
  try {
    await client.check();
    console.log(
      `\n${name}: ${opts.clients} clients, keep-alive; mix ${MIX.filter(([k]) => !opts.only || opts.only.includes(k))
        .map(([k, w]) => `${k} ${w}`)
        .join(', ')} (parts); load ${loadText()}`,
    );
    // warm-up: JIT, pool connections, plans, the key and read caches
    await runLoad(opts.clients, 5, () => client.mixed());

    const base1 = await phase(`baseline 1: GET /test-auth only, ${opts.baselineSeconds} s`, server, monitor, () =>
      runLoad(opts.clients, opts.baselineSeconds, () => client.op('baseline')),
    );
    const mixed = await phase(`mixed load, ${opts.seconds} s`, server, monitor, () =>
      runLoad(opts.clients, opts.seconds, () => client.mixed()),
    );
    const base2 = await phase(`baseline 2 (after), ${opts.baselineSeconds} s`, server, monitor, () =>
      runLoad(opts.clients, opts.baselineSeconds, () => client.op('baseline')),
    );
    // the machine's floor for a statement: what a round trip to PostgreSQL costs both sides when the
    // statement itself does nothing (on a virtual machine a socket write can cost ~90 µs of CPU)
    const trips = store.url
      ? await phase(`round trips: 10 connections, a named select $1, 3 s`, server, monitor, () =>
          roundTrips(store.url!, 10, 3),
        )
      : undefined;
    const baseRate = (base1.result.rate + base2.result.rate) / 2;
    report('baseline 1', base1, monitor);
    report('baseline 2', base2, monitor);
    report('mixed', mixed, monitor);
    const m = mixed.result;
    if (trips) {
      const n = trips.result;
      const perTrip = (cpu: number) => (1e6 * cpu) / n;
      const tripCpu = (trips.usage.benchCpu + trips.usage.postgresCpu) / n;
      const u = mixed.usage;
      console.log(
        `\n  round trip to PostgreSQL (the floor of a statement): ${fmt(n / trips.usage.wallSeconds)} statements/s;` +
          ` CPU per statement: client ${perTrip(trips.usage.benchCpu).toFixed(0)} µs, PostgreSQL ${perTrip(trips.usage.postgresCpu).toFixed(0)} µs;` +
          ` a mixed request's CPU (server + PostgreSQL) is the cost of ${((u.serverCpu + u.postgresCpu) / m.count / tripCpu).toFixed(1)} such round trips`,
      );
    }
    const p99 = quantile(m.all, 0.99);
    console.log(
      `  mixed ÷ baseline (req/s, mean of the two baselines ${fmt(baseRate)}): ${(m.rate / baseRate).toFixed(2)}`,
    );
    console.log(
      `  target ≥ ${fmt(TARGET_RPS)} req/s: ${fmt(m.rate)} ${m.rate >= TARGET_RPS ? 'OK' : 'BELOW TARGET'};` +
        ` target p99 < ${TARGET_P99_MS} ms: ${p99.toFixed(1)} ms ${p99 < TARGET_P99_MS ? 'OK' : 'OVER'}`,
    );

    if (sink) {
      await settle(server.url);
      await sink.reset();
      const idle = await phase(`send to ${fmt(opts.recipients)}, idle`, server, monitor, () =>
        client.send('idle', sink, opts.recipients),
      );
      console.log(
        `\n  send idle: ${idle.result.sendSeconds.toFixed(1)} s (${fmt(opts.recipients / idle.result.sendSeconds)} msg/s)`,
      );
      printUsage(idle, monitor);
      await settle(server.url);
      await sink.reset();
      // the mixed load runs from 3 s before the schedule until the campaign is sent
      const loaded = await phase(`send to ${fmt(opts.recipients)} under the mixed load`, server, monitor, async () => {
        const ctl = new AbortController();
        const load = runLoad(opts.clients, 3600, () => client.mixed(), ctl.signal);
        await new Promise((r) => setTimeout(r, 3000));
        try {
          const { sendSeconds } = await client.send('loaded', sink, opts.recipients);
          ctl.abort();
          return { sendSeconds, during: await load };
        } finally {
          ctl.abort();
          await load;
        }
      });
      const during = loaded.result.during;
      const sendRatio = loaded.result.sendSeconds / idle.result.sendSeconds;
      report('mixed load during the send', { ...loaded, result: during }, monitor);
      console.log(
        `  send under load: ${loaded.result.sendSeconds.toFixed(1)} s (${fmt(opts.recipients / loaded.result.sendSeconds)} msg/s); idle ${idle.result.sendSeconds.toFixed(1)} s;` +
          ` ratio ${sendRatio.toFixed(2)} (target ≤ ${TARGET_SEND_RATIO}) ${sendRatio <= TARGET_SEND_RATIO ? 'OK' : 'OVER'}`,
      );
    }
    console.log(`  load at the end: ${loadText()}`);
  } finally {
    await monitor?.close();
    await settle(server.url).catch(() => {});
    await server.stop();
    await agent.close();
  }
}

/** `connections` loops running a named no-op statement for `seconds`; returns how many ran. */
async function roundTrips(url: string, connections: number, seconds: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  try {
    const end = performance.now() + seconds * 1000;
    let n = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          await pool.query({ name: 'bench_round_trip', text: 'select $1::int as x', values: [n] });
          n++;
        }
      }),
    );
    return n;
  } finally {
    await pool.end();
  }
}

/** The 1, 5 and 15 minute load averages: the machine is shared, so every figure comes with its load. */
const loadText = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface Usage {
  wallSeconds: number;
  serverCpu: number;
  postgresCpu: number;
  benchCpu: number;
  loadBefore: string;
  loadAfter: string;
}

/** Runs fn with CPU accounting and (PostgreSQL) pg_stat_activity sampling around it. */
async function phase<T>(
  label: string,
  server: ServerProcess,
  monitor: ActivityMonitor | undefined,
  fn: () => Promise<T>,
): Promise<{ label: string; result: T; usage: Usage; activity?: ActivitySummary; inside: Inside }> {
  const loadBefore = loadText();
  const server0 = server.cpuSeconds();
  const bench0 = process.cpuUsage();
  const t0 = performance.now();
  monitor?.start();
  const metrics = new ServerMetrics(server.url);
  await metrics.start();
  let result: T;
  try {
    result = await fn();
  } finally {
    monitor?.stop();
  }
  const inside = await metrics.stop();
  const wallSeconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(bench0);
  return {
    label,
    result,
    activity: monitor?.summary(),
    inside,
    usage: {
      wallSeconds,
      serverCpu: server.cpuSeconds() - server0,
      postgresCpu: monitor?.postgresCpuSeconds() ?? 0,
      benchCpu: (used.user + used.system) / 1e6,
      loadBefore,
      loadAfter: loadText(),
    },
  };
}

function printUsage(
  p: { usage: Usage; activity?: ActivitySummary; inside: Inside },
  monitor: ActivityMonitor | undefined,
  requests?: number,
): void {
  const u = p.usage;
  const pct = (cpu: number) => `${((100 * cpu) / u.wallSeconds).toFixed(0)} %`;
  console.log(
    `    CPU over ${u.wallSeconds.toFixed(1)} s (100 % = one core of ${cores()}): server ${pct(u.serverCpu)}` +
      `${monitor ? `, PostgreSQL backends of the database ${pct(u.postgresCpu)}` : ''}, bench ${pct(u.benchCpu)}; load ${u.loadBefore} → ${u.loadAfter}`,
  );
  if (requests)
    console.log(
      `    CPU per request: server ${((1000 * u.serverCpu) / requests).toFixed(2)} ms` +
        `${monitor ? `, PostgreSQL ${((1000 * u.postgresCpu) / requests).toFixed(2)} ms` : ''}, bench ${((1000 * u.benchCpu) / requests).toFixed(2)} ms`,
    );
  const i = p.inside;
  if (i.samples > 0)
    console.log(
      `    server's event loop delay (${i.samples} windows of ${METRICS_EVERY_S} s; measured by a 10 ms timer, so 10 ms = no delay): mean ${i.lagMeanMs.toFixed(1)} ms, p99 ${i.lagP99Ms.toFixed(1)} ms (worst window ${i.lagP99MaxMs.toFixed(1)})` +
        `${i.poolWaiting !== undefined ? `; pool of ${i.poolMax}: ${i.poolIdle!.toFixed(1)} idle, ${i.poolWaiting.toFixed(1)} queries waiting (≈ 6 of them the metrics read's own)` : ''}`,
    );
  if (p.activity) printActivity(p.activity);
}

const cores = () => readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? 0;

function report(
  label: string,
  p: { result: LoadResult; usage: Usage; activity?: ActivitySummary; inside: Inside },
  monitor: ActivityMonitor | undefined,
): void {
  const r = p.result;
  console.log(
    `\n  ${label}: ${fmt(r.count)} requests in ${r.seconds.toFixed(1)} s = ${fmt(r.rate)} req/s; ` +
      `p50 ${quantile(r.all, 0.5).toFixed(1)}  p95 ${quantile(r.all, 0.95).toFixed(1)}  p99 ${quantile(r.all, 0.99).toFixed(1)} ms; ` +
      `errors ${r.errors}`,
  );
  const kinds = [...r.byKind.entries()].sort((a, b) => b[1].length - a[1].length);
  if (kinds.length > 1)
    for (const [kind, times] of kinds)
      console.log(
        `    ${kind.padEnd(26)}${fmt(times.length / r.seconds).padStart(7)} req/s   p50 ${quantile(times, 0.5).toFixed(1).padStart(6)}` +
          `   p95 ${quantile(times, 0.95).toFixed(1).padStart(6)}   p99 ${quantile(times, 0.99).toFixed(1).padStart(6)} ms` +
          `${r.errorsByKind.get(kind) ? `   errors ${r.errorsByKind.get(kind)}` : ''}`,
      );
  for (const e of r.firstErrors) console.log(`    error: ${e}`);
  printUsage(p, monitor, r.count);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface LoadResult {
  count: number;
  seconds: number;
  rate: number;
  /** every latency in ms, sorted */
  all: number[];
  byKind: Map<Kind, number[]>;
  errors: number;
  errorsByKind: Map<Kind, number>;
  firstErrors: string[];
}

interface Outcome {
  kind: Kind;
  /** undefined when it succeeded, else what to print */
  error?: string;
}

/** `clients` loops calling `next` until `seconds` have passed (or `signal` aborts); every call timed. */
async function runLoad(
  clients: number,
  seconds: number,
  next: () => Promise<Outcome>,
  signal?: AbortSignal,
): Promise<LoadResult> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const byKind = new Map<Kind, number[]>();
  const errorsByKind = new Map<Kind, number>();
  const firstErrors: string[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end && !signal?.aborted) {
        const start = performance.now();
        const o = await next();
        const ms = performance.now() - start;
        let times = byKind.get(o.kind);
        if (!times) byKind.set(o.kind, (times = []));
        times.push(ms);
        if (o.error !== undefined) {
          errors++;
          errorsByKind.set(o.kind, (errorsByKind.get(o.kind) ?? 0) + 1);
          if (firstErrors.length < 5) firstErrors.push(`${o.kind}: ${o.error}`);
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const all = [...byKind.values()].flat().sort((a, b) => a - b);
  for (const times of byKind.values()) times.sort((a, b) => a - b);
  return {
    count: all.length,
    seconds: elapsed,
    rate: all.length / elapsed,
    all,
    byKind,
    errors,
    errorsByKind,
    firstErrors,
  };
}

/** The bench's HTTP side: one keep-alive agent, one request per call, the answer read in full. */
class Client {
  private readonly auth: Record<string, string>;
  private readonly json: Record<string, string>;
  private readonly mcpHeaders: Record<string, string>;
  private readonly run = Date.now().toString(36);
  private created = 0;
  private updated = 0;
  private wheel: Kind[] = MIX.flatMap(([kind, weight]) => Array<Kind>(weight).fill(kind));
  /** subscribers made during the run, read and updated like the seeded ones */
  private readonly ids: string[];

  constructor(
    private readonly base: string,
    private readonly seeded: Seeded,
    private readonly agent: Agent,
    only?: string[],
  ) {
    if (only) this.wheel = this.wheel.filter((k) => only.includes(k));
    this.auth = { authorization: `Bearer ${seeded.key}` };
    this.json = { ...this.auth, 'content-type': 'application/json' };
    this.mcpHeaders = { ...this.json, accept: 'application/json, text/event-stream' };
    this.ids = [...seeded.ids];
  }

  private async call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    headers = body === undefined ? this.auth : this.json,
  ): Promise<{ status: number; text: string }> {
    const res = await request(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.agent,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  private randomId(): string {
    return this.ids[Math.floor(Math.random() * this.ids.length)]!;
  }

  mixed(): Promise<Outcome> {
    return this.op(this.wheel[Math.floor(Math.random() * this.wheel.length)]!);
  }

  async op(kind: Kind): Promise<Outcome> {
    const api = '/api/v1/external';
    let status = 0;
    let text = '';
    try {
      switch (kind) {
        case 'baseline':
          ({ status, text } = await this.call('GET', `${api}/test-auth`));
          break;
        case 'get':
          ({ status, text } = await this.call('GET', `${api}/subscribers/${this.randomId()}`));
          break;
        case 'list':
          ({ status, text } = await this.call('GET', `${api}/subscribers`));
          break;
        case 'search': {
          const term = SEARCHES[Math.floor(Math.random() * SEARCHES.length)]!;
          ({ status, text } = await this.call('GET', `${api}/subscribers?search=${encodeURIComponent(term)}`));
          break;
        }
        case 'create': {
          const n = ++this.created;
          ({ status, text } = await this.call('POST', `${api}/subscribers`, {
            email: `load-${this.run}-${n}@example.org`,
            first_name: FIRST[n % FIRST.length],
            last_name: LAST[n % LAST.length],
            custom_fields: { company: `Company ${n % 500}`, score: n % 100, plan: n % 4 === 0 ? 'pro' : 'free' },
            group_ids: [this.seeded.interestGroups[n % this.seeded.interestGroups.length]],
          }));
          if (status === 201) this.ids.push((JSON.parse(text) as { data: { id: string } }).data.id);
          break;
        }
        case 'update': {
          // names and custom fields only: no status or group change, so the campaign's audience stays whole
          const n = ++this.updated;
          ({ status, text } = await this.call('PUT', `${api}/subscribers/${this.randomId()}`, {
            first_name: FIRST[(n * 7) % FIRST.length],
            custom_fields: { score: n % 100 },
          }));
          break;
        }
        case 'mcp get_subscriber':
        case 'mcp get_subscriber_count': {
          const tool = kind.slice(4);
          const args = tool === 'get_subscriber' ? { subscriber_id: this.randomId() } : {};
          ({ status, text } = await this.call(
            'POST',
            '/mcp',
            { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
            this.mcpHeaders,
          ));
          if (status === 200 && (text.includes('"isError":true') || text.includes('"error":{')))
            return { kind, error: `tool error ${text.slice(0, 200)}` };
          break;
        }
      }
    } catch (err) {
      return { kind, error: `request failed: ${(err as Error).message}` };
    }
    return status >= 200 && status < 300 ? { kind } : { kind, error: `${status} ${text.slice(0, 200)}` };
  }

  /** One call of each kind, so a wrong route or payload stops the bench before it measures. */
  async check(): Promise<void> {
    for (const [kind] of [...MIX, ['baseline'] as const]) {
      const o = await this.op(kind);
      if (o.error) throw new Error(`check ${kind}: ${o.error}`);
    }
  }

  /** A campaign to the audience group, scheduled now; seconds from the schedule to status sent. */
  async send(label: string, sink: Sink, n: number): Promise<{ sendSeconds: number }> {
    const api = '/api/v1/external';
    const created = await this.call('POST', `${api}/campaigns`, {
      name: `Load bench (${label})`,
      subject: 'News for {{ subscriber.first_name }}',
      from_name: 'Bench',
      from_email: 'bench@example.org',
      content_html: HTML,
      group_ids: [this.seeded.audienceGroup],
    });
    if (created.status !== 201) throw new Error(`create campaign: ${created.status} ${created.text}`);
    const id = (JSON.parse(created.text) as { data: { id: string } }).data.id;
    const t0 = performance.now();
    const scheduled = await this.call('POST', `${api}/campaigns/${id}/schedule`, { delivery: 'instant' });
    if (scheduled.status < 200 || scheduled.status > 299)
      throw new Error(`schedule: ${scheduled.status} ${scheduled.text}`);
    let stats: Record<string, number> = {};
    for (let status = ''; status !== 'sent';) {
      if (performance.now() - t0 > 900_000) throw new Error(`the ${label} send did not finish in 15 minutes`);
      await new Promise((r) => setTimeout(r, 200));
      const c = await this.call('GET', `${api}/campaigns/${id}`);
      if (c.status !== 200) continue; // counted nowhere: the poll is the bench's, not the load's
      const data = (JSON.parse(c.text) as { data: { status: string; stats: Record<string, number> } }).data;
      status = data.status;
      stats = data.stats;
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    const got = await sink.count();
    if (got.total !== n || stats.sent !== n)
      throw new Error(`${label} send: the sink got ${got.total}, the ledger says sent ${stats.sent}, of ${n}`);
    return { sendSeconds };
  }
}

const METRICS_EVERY_S = 2;

interface Inside {
  samples: number;
  lagMeanMs: number;
  lagP99Ms: number;
  lagP99MaxMs: number;
  poolWaiting?: number;
  poolIdle?: number;
  poolMax?: number;
}

/**
 * The server's own view, from GET /metrics every few seconds: the event loop's delay (prom-client resets
 * its histogram at each read, so each read covers the window since the previous one) and the PostgreSQL
 * pool's idle connections and waiting queries. A read costs the server a few small queries.
 */
class ServerMetrics {
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private readonly reads: Record<string, number>[] = [];

  constructor(private readonly url: string) {}

  private async read(): Promise<Record<string, number> | undefined> {
    const res = await fetch(`${this.url}/metrics`).catch(() => undefined);
    if (!res?.ok) return undefined;
    const values: Record<string, number> = {};
    for (const line of (await res.text()).split('\n')) {
      const m =
        /^mailgrove_(nodejs_eventloop_lag_(?:mean|p99)_seconds|db_pool_connections\{state="(\w+)"\}) (\S+)$/.exec(line);
      if (m) values[m[2] ? `pool_${m[2]}` : m[1]!] = Number(m[3]);
    }
    return values;
  }

  async start(): Promise<void> {
    await this.read(); // resets the delay histogram: the first window starts now
    this.timer = setInterval(() => {
      if (!this.inFlight)
        this.inFlight = this.read()
          .then((v) => void (v && this.reads.push(v)))
          .finally(() => (this.inFlight = undefined));
    }, METRICS_EVERY_S * 1000);
  }

  async stop(): Promise<Inside> {
    clearInterval(this.timer);
    await this.inFlight;
    const reads = this.reads;
    const mean = (k: string) => reads.reduce((sum, r) => sum + (r[k] ?? 0), 0) / reads.length;
    const hasPool = reads.some((r) => r.pool_max !== undefined);
    return {
      samples: reads.length,
      lagMeanMs: 1000 * mean('nodejs_eventloop_lag_mean_seconds'),
      lagP99Ms: 1000 * mean('nodejs_eventloop_lag_p99_seconds'),
      lagP99MaxMs: 1000 * Math.max(0, ...reads.map((r) => r.nodejs_eventloop_lag_p99_seconds ?? 0)),
      ...(hasPool && { poolWaiting: mean('pool_waiting'), poolIdle: mean('pool_idle'), poolMax: reads[0]!.pool_max }),
    };
  }
}

interface ActivitySummary {
  samples: number;
  /** mean sessions per state and wait, over the samples */
  states: [string, number][];
  /** lock waits: what waited (lock, statement) and on whose statement */
  locks: [string, number][];
  /** mean sessions active without a wait event (on a CPU or queued for one), by statement */
  running: [string, number][];
}

/** Samples pg_stat_activity of the bench's database once a second while started; PostgreSQL only. */
class ActivityMonitor {
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private samples = 0;
  private readonly states = new Map<string, number>();
  private readonly locks = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private readonly backendCpu = new Map<string, { first: number; last: number }>();

  private constructor(
    private readonly c: pg.Client,
    private readonly dbName: string,
  ) {}

  static async open(url: string, dbName: string): Promise<ActivityMonitor> {
    const c = new pg.Client({ connectionString: url, application_name: 'mailgrove load bench monitor' });
    await c.connect();
    return new ActivityMonitor(c, dbName);
  }

  start(): void {
    this.samples = 0;
    this.states.clear();
    this.locks.clear();
    this.running.clear();
    this.backendCpu.clear();
    this.readBackendCpu(true);
    this.timer = setInterval(() => {
      this.readBackendCpu(false);
      if (!this.inFlight) this.inFlight = this.sample().finally(() => (this.inFlight = undefined));
    }, 1000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.readBackendCpu(false);
  }

  private async sample(): Promise<void> {
    const { rows } = await this.c.query<{
      state: string | null;
      wait_event_type: string | null;
      wait_event: string | null;
      query: string;
      lock: string | null;
      blocker: string | null;
    }>(
      `select a.state, a.wait_event_type, a.wait_event, left(regexp_replace(a.query, '\\s+', ' ', 'g'), 80) as query,
              -- an object lock on pg_database 0 is the NOTIFY queue's, taken by every commit that notified
              (select string_agg(distinct l.mode || ' ' || l.locktype
                                 || coalesce(' on ' || l.relation::regclass::text, '')
                                 || case when l.locktype = 'object' then ' ' || l.classid::regclass || ' ' || l.objid
                                         else '' end, ', ')
                 from pg_locks l where l.pid = a.pid and not l.granted) as lock,
              (select left(regexp_replace(b.query, '\\s+', ' ', 'g'), 60) from pg_stat_activity b
                where b.pid = (pg_blocking_pids(a.pid))[1]) as blocker
         from pg_stat_activity a
        where a.datname = $1 and a.pid <> pg_backend_pid() and a.backend_type = 'client backend'`,
      [this.dbName],
    );
    this.samples++;
    const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const r of rows) {
      add(this.states, `${r.state ?? '?'} ${r.wait_event_type ?? 'CPU'}${r.wait_event ? `:${r.wait_event}` : ''}`);
      if (r.wait_event_type === 'Lock') add(this.locks, `${r.lock ?? r.wait_event} | ${r.query} ← ${r.blocker ?? '?'}`);
      if (r.state === 'active' && !r.wait_event_type) add(this.running, r.query);
    }
  }

  summary(): ActivitySummary {
    const mean = (m: Map<string, number>) =>
      [...m.entries()]
        .map(([k, n]): [string, number] => [k, n / Math.max(1, this.samples)])
        .sort((a, b) => b[1] - a[1]);
    return { samples: this.samples, states: mean(this.states), locks: mean(this.locks), running: mean(this.running) };
  }

  /**
   * CPU seconds the PostgreSQL backends of this database used between start() and stop(). Read per backend
   * from /proc at start, every second and at stop: the server's pool closes connections idle for 10 s and
   * opens others, and a backend that exits takes its seconds with it, so one that ends between two reads
   * loses at most a second of its work (a lower bound); one that starts meanwhile counts from zero.
   */
  postgresCpuSeconds(): number {
    let total = 0;
    for (const { first, last } of this.backendCpu.values()) total += last - first;
    return total;
  }

  private readBackendCpu(initial: boolean): void {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmd.startsWith('postgres: ') || !cmd.includes(` ${this.dbName} `)) continue;
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        const cpu = (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, clock ticks (100/s)
        const seen = this.backendCpu.get(pid);
        if (seen) seen.last = cpu;
        else this.backendCpu.set(pid, { first: initial ? cpu : 0, last: cpu });
      } catch {} // the process ended meanwhile
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
    await this.c.end();
  }
}

function printActivity(a: ActivitySummary): void {
  if (a.samples === 0) return;
  const top = (rows: [string, number][], n: number) =>
    rows
      .slice(0, n)
      .map(([k, v]) => `      ${v.toFixed(1).padStart(5)}  ${k}`)
      .join('\n');
  console.log(`    pg_stat_activity, mean sessions of the database over ${a.samples} samples (state, wait):`);
  console.log(top(a.states, 8));
  if (a.running.length) console.log(`    running (active, no wait event), by statement:\n${top(a.running, 5)}`);
  if (a.locks.length)
    console.log(`    lock waits (lock | waiting statement ← blocking statement):\n${top(a.locks, 6)}`);
}
