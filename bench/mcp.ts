// npm run bench -- mcp: the same read through both faces in one run — tools/call get_subscriber on /mcp
// versus REST GET /subscribers/{id} — with autocannon, rate limits raised out of the way. Prints req/s of
// each and the ratio MCP/REST (target ≥ 0.5). DATABASE_URL selects PostgreSQL; else in-memory PGlite.
import { createRequire } from 'node:module';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/db/client.ts';
import * as accounts from '../src/domain/accounts/accounts.ts';
import * as apiKeys from '../src/domain/accounts/apiKeys.ts';
import * as subscribers from '../src/domain/subscribers/subscribers.ts';
import { start } from '../src/main.ts';

interface Result {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<Result>;
// autocannon ships no types; this is the slice of its API the bench uses
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// The first target measured used to lose up to half its rate to JIT and pool warm-up (MCP first: 0.57,
// REST first: 1.96 in the same minute), so both are warmed up and then measured in alternating rounds.
const ROUNDS = 3;
const ROUND_S = 5;
const WARMUP_S = 3;
const CONNECTIONS = 10;

export default async function run(): Promise<void> {
  const config = loadConfig({
    PORT: 0,
    LOG_LEVEL: 'warn',
    MCP_RATE_LIMIT: 100_000_000,
    REST_RATE_LIMIT: 100_000_000,
    WORKERS: false,
    MAILGROVE_SECRET: 'bench-secret',
  });
  const handle = await openDb({ url: config.DATABASE_URL }); // no URL: in-memory PGlite
  const running = await start(config, { handle });
  try {
    const account = await accounts.create(
      handle.db,
      { name: 'MCP bench', owner_email: 'bench@example.com' },
      config.DEFAULT_SUBSCRIBER_LIMIT,
    );
    const { key } = await apiKeys.create(handle.db, account.id, { name: 'bench', scopes: ['*'] });
    const sub = await subscribers.create(handle.db, account.id, {
      email: 'bench.subscriber@example.com',
      first_name: 'Bench',
      custom_fields: {},
    });
    const auth = { authorization: `Bearer ${key}` };
    const rest = { url: `${running.url}/api/v1/external/subscribers/${sub.id}`, method: 'GET', headers: auth };
    const mcp = {
      url: `${running.url}/mcp`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_subscriber', arguments: { subscriber_id: sub.id } },
      }),
    };
    await checkBoth(rest, mcp, sub.id);

    console.log(
      `MCP vs REST, ${handle.kind}, ${CONNECTIONS} connections, ${WARMUP_S}s warm-up each, then ${ROUNDS} alternating rounds of ${ROUND_S}s`,
    );
    await measure(rest, WARMUP_S);
    await measure(mcp, WARMUP_S);
    const rates = { rest: [] as Result[], mcp: [] as Result[] };
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? (['rest', 'mcp'] as const) : (['mcp', 'rest'] as const);
      for (const face of order) rates[face].push(await measure(face === 'rest' ? rest : mcp, ROUND_S));
    }
    const r = report('REST GET /subscribers/{id}', rates.rest);
    const m = report('MCP tools/call get_subscriber', rates.mcp);
    const ratio = m / r;
    console.log(`ratio MCP/REST: ${ratio.toFixed(2)} (target ≥ 0.5) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`);
  } finally {
    // autocannon returns when its time is up, not when the server has answered the requests in flight
    await new Promise((r) => setTimeout(r, 1000));
    await running.stop();
    await handle.close();
  }
}

async function measure(target: Record<string, unknown>, seconds: number): Promise<Result> {
  const res = await autocannon({ ...target, connections: CONNECTIONS, duration: seconds });
  if (res.non2xx > 0 || res.errors > 0)
    throw new Error(`${String(target.url)}: ${res.non2xx} non-2xx answers, ${res.errors} errors`);
  return res;
}

/** Prints the rounds of one face and returns its mean rate. */
function report(label: string, rounds: Result[]): number {
  const mean = rounds.reduce((sum, r) => sum + r.requests.average, 0) / rounds.length;
  const per = rounds.map((r) => r.requests.average.toFixed(0)).join(' / ');
  const p50 = Math.max(...rounds.map((r) => r.latency.p50));
  const p99 = Math.max(...rounds.map((r) => r.latency.p99));
  console.log(
    `${label.padEnd(32)} ${mean.toFixed(0).padStart(6)} req/s (rounds ${per})   p50 ≤ ${p50} ms   p99 ≤ ${p99} ms`,
  );
  return mean;
}

/** Both requests must really return the subscriber, or the numbers measure an error path. */
async function checkBoth(
  rest: { url: string; headers: Record<string, string> },
  mcp: { url: string; headers: Record<string, string>; body: string },
  id: string,
) {
  const a = (await (await fetch(rest.url, { headers: rest.headers })).json()) as { data?: { id?: string } };
  const b = (await (await fetch(mcp.url, { method: 'POST', headers: mcp.headers, body: mcp.body })).json()) as {
    result?: { content: { text: string }[]; isError?: boolean };
  };
  const tool =
    b.result && !b.result.isError ? (JSON.parse(b.result.content[0]!.text) as { data?: { id?: string } }) : undefined;
  if (a.data?.id !== id || tool?.data?.id !== id)
    throw new Error(`bench requests do not return the subscriber: ${JSON.stringify({ a, b })}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
