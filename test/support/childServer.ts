// Mailgrove as a real child process (`node --import tsx src/cli.ts serve`), for tests that kill it
// (kill -9) and start it again on the same database: a PGlite data dir, or a fresh PostgreSQL database
// when TEST_DATABASE_URL is set — or the DATABASE_URL given in env, which another child made (two
// instances of one deployment; the child that made the database drops it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
const ROOT = new URL('../../', import.meta.url).pathname;

export interface ChildServer {
  url: string;
  adminToken: string;
  /** PostgreSQL only: the database this child runs on */
  databaseUrl: string | undefined;
  /** the process id of the running child (undefined before start) */
  readonly pid: number | undefined;
  start(): Promise<void>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
  /** removes the data dir / drops the database */
  destroy(): Promise<void>;
  output(): string;
}

export async function childServer(env: Record<string, string>): Promise<ChildServer> {
  let port = await freePort();
  // its own token: the readiness check below asks the admin API with it, so a server of another test that
  // took the same port in the meantime is never mistaken for this one
  const adminToken = env.MAILGROVE_ADMIN_TOKEN ?? `child-admin-${Math.random().toString(36).slice(2, 12)}`;
  let dataDir: string | undefined;
  let dbName: string | undefined;
  let databaseUrl: string | undefined;
  if (env.DATABASE_URL) {
    databaseUrl = env.DATABASE_URL;
  } else if (TEST_DATABASE_URL) {
    dbName = `mg_child_${Math.random().toString(36).slice(2, 10)}`;
    await adminQuery(`create database ${dbName}`);
    const u = new URL(TEST_DATABASE_URL);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'mailgrove-child-'));
  }
  let child: ChildProcess | undefined;
  let log = '';
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    MAILGROVE_ADMIN_TOKEN: adminToken,
    MAILGROVE_SECRET: 'child-secret',
    LOG_LEVEL: 'warn',
    SEND_CHECKS: 'warn', // as startServer: sinks on loopback, unverified domains
    ALLOW_INSECURE_PUBLIC_URL: 'true', // as startServer: links on http://127.0.0.1
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { MAILGROVE_DATA_DIR: dataDir!, DATABASE_URL: '' }),
    ...env,
  };
  const exited = () =>
    new Promise<void>((resolve) =>
      child && child.exitCode === null && child.signalCode === null ? child.once('exit', () => resolve()) : resolve(),
    );
  // the port was free when chosen; another process may bind it before the child does
  const ours = async () =>
    adminToken === '' || fullEnv.MAILGROVE_ROLE === 'worker' // no admin API to ask
      ? true
      : fetch(`http://127.0.0.1:${port}/admin/v1/accounts?per_page=1`, {
          headers: { authorization: `Bearer ${adminToken}` },
        }).then(
          (r) => r.ok,
          () => false,
        );
  let started = false;
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    adminToken,
    databaseUrl,
    get pid() {
      return child?.pid;
    },
    async start() {
      for (let attempt = 1; ; attempt++) {
        const spawned = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
          cwd: ROOT,
          env: fullEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child = spawned;
        let own = '';
        spawned.stdout!.on('data', (d) => ((log += d), (own += d)));
        spawned.stderr!.on('data', (d) => ((log += d), (own += d)));
        const until = Date.now() + 60_000;
        for (;;) {
          if (spawned.exitCode !== null) {
            // taken before its first start: another port (a restart keeps the address the test knows)
            if (!started && attempt < 3 && /EADDRINUSE/.test(own)) break;
            throw new Error(`child server exited (${spawned.exitCode}):\n${log}`);
          }
          const healthy = await fetch(`http://127.0.0.1:${port}/api/health`).then(
            (r) => r.ok,
            () => false,
          );
          if (healthy && (await ours())) return void (started = true);
          if (Date.now() > until) throw new Error(`child server did not become healthy:\n${log}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        port = await freePort();
        fullEnv.PORT = String(port);
        fullEnv.PUBLIC_URL = `http://127.0.0.1:${port}`;
      }
    },
    async kill9() {
      child?.kill('SIGKILL');
      await exited();
    },
    async stop() {
      child?.kill('SIGTERM');
      await exited();
    },
    async destroy() {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited();
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (dbName) await adminQuery(`drop database if exists ${dbName} with (force)`);
    },
    output: () => log,
  };
}

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
