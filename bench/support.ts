// Shared bench plumbing: a fresh PostgreSQL database per run (dropped after), the real server started as
// a child process (so its memory is measured alone, from /proc/<pid>/status), and an account + key made
// through the admin API. Benches read BENCH_DATABASE_URL (default: the local postgres server).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';

export const ADMIN_TOKEN = 'bench-admin-token';
export const PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function freshDatabase(prefix = 'mg_bench'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** kB from /proc/<pid>/status: current resident set and its high-water mark */
  memory(): { rssKb: number; hwmKb: number };
  /** CPU seconds (user + system) the server process has used so far, from /proc/<pid>/stat */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** `mailgrove serve` as a child process on a free port, with the admin API on. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server alone
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MAILGROVE_ADMIN_TOKEN: ADMIN_TOKEN,
      MAILGROVE_SECRET: 'bench-secret',
      LOG_LEVEL: 'warn',
      REST_RATE_LIMIT: '1000000',
      MCP_RATE_LIMIT: '1000000',
      // the sink on loopback and the seeded accounts' domains would fail the checks before a send
      SEND_CHECKS: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    child,
    memory() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
    },
    cpuSeconds() {
      // fields after the ")" that ends the command name: state is field 3, utime 14, stime 15 (clock ticks, 100/s on Linux)
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A new account (subscriber_limit as given) and a key with every scope, through the admin API. */
export async function newAccount(
  server: ServerProcess,
  subscriberLimit: number,
): Promise<{ accountId: string; key: string }> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { data: any };
    if (res.status !== 201) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const account = await call('/accounts', { name: 'Bench', subscriber_limit: subscriberLimit });
  const key = await call(`/accounts/${account.id}/api-keys`, { name: 'bench', scopes: ['*'] });
  return { accountId: account.id, key: key.key };
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en');

/**
 * Waits until the server answers a health check quickly: what a round of load left in flight has been
 * worked off (on PGlite, one query at a time, a round of slow searches otherwise ate into the next round).
 */
export async function settle(url: string): Promise<void> {
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const started = Date.now();
    const ok = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok && Date.now() - started < 50) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
