// Import: "records progress after each batch so a restart resumes without duplicates".
// The real server runs as a child process; it is killed with SIGKILL mid-import and started again on
// the same database, and the final counts must be exact: nothing lost, nothing counted twice.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { openDb } from '../../src/db/client.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
const ADMIN = 'restart-admin-token';
// PostgreSQL runs a batch in a few ms: a larger file keeps the import running long enough to be cut
const ROWS = TEST_DATABASE_URL ? 60_000 : 20_000;
const EXISTING = 500;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

/** A fresh store for the child: a PGlite data dir, or a new PostgreSQL database (a child cannot take a schema). */
async function freshStore(): Promise<{
  env: Record<string, string>;
  url?: string;
  dataDir?: string;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailgrove-restart-'));
  if (!TEST_DATABASE_URL)
    return {
      env: { MAILGROVE_DATA_DIR: dataDir },
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  const name = `mg_restart_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), MAILGROVE_DATA_DIR: dataDir },
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function serve(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MAILGROVE_ADMIN_TOKEN: ADMIN,
      MAILGROVE_SECRET: 'restart-secret',
      LOG_LEVEL: 'warn',
      WORKER_POLL_MS: '200',
      REST_RATE_LIMIT: '100000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // generous: on a loaded 2-core machine tsx + PGlite + migrations can take tens of seconds
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL'); // a child left running would keep the test process alive
  throw new Error('server did not start');
}

async function stop(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

test(
  'Import › killed with SIGKILL mid-import, the restarted server resumes from the last batch with exact counts',
  { timeout: 170_000 },
  async (t) => {
    const store = await freshStore();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let child = await serve(port, store.env);
    t.after(async () => {
      await stop(child, 'SIGKILL');
      await store.drop();
    });
    const adminCall = async (path: string, body: unknown) => {
      const res = await fetch(`${base}/admin/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      assert.equal(res.status, 201, JSON.stringify(json));
      return json.data;
    };
    const account = await adminCall('/accounts', { name: 'Restart', subscriber_limit: 1_000_000 });
    const { key } = await adminCall(`/accounts/${account.id}/api-keys`, { name: 'restart', scopes: ['*'] });
    const rest = (path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/v1/external${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...init.headers },
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    // some addresses exist already (in another case): they are updates, not creations
    const seed = ['email', ...Array.from({ length: EXISTING }, (_, i) => `USER${i}@example.com`)].join('\n');
    const seedForm = new FormData();
    seedForm.append('file', new Blob([seed]), 'seed.csv');
    const seeded = await rest('/subscribers/import-async', { method: 'POST', body: seedForm });
    assert.equal(seeded.status, 200, JSON.stringify(seeded.body));
    for (
      let job = seeded.body.data;
      job.status === 'processing';
      job = (await rest(`/imports/${job.job_id}`)).body.data
    )
      await new Promise((r) => setTimeout(r, 100));

    const lines = ['email,first_name'];
    for (let i = 0; i < ROWS; i++) lines.push(`user${i}@example.com,User ${i}`);
    const form = new FormData();
    form.append('file', new Blob([lines.join('\n')]), 'big.csv');
    const started = await rest('/subscribers/import-async', { method: 'POST', body: form });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const jobId = started.body.data.job_id;

    let atKill = 0;
    for (let i = 0; i < 3000 && atKill === 0; i++) {
      const job = (await rest(`/imports/${jobId}`)).body.data;
      if (job.processed_rows > 0) atKill = job.processed_rows;
      else await new Promise((r) => setTimeout(r, 10));
    }
    await stop(child, 'SIGKILL');
    assert.ok(atKill > 0 && atKill < ROWS, `killed after ${atKill} of ${ROWS} rows: the import must be cut mid-way`);

    child = await serve(port, store.env);
    let job: any;
    for (let i = 0; i < 1200; i++) {
      job = (await rest(`/imports/${jobId}`)).body.data;
      if (job.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(
      {
        processed: job.processed_rows,
        created: job.created_count,
        updated: job.updated_count,
        failed: job.failed_count,
      },
      { processed: ROWS, created: ROWS - EXISTING, updated: EXISTING, failed: 0 },
    );
    const stats = (await rest('/subscribers/stats')).body.data;
    assert.equal(stats.total, ROWS);

    // every event exactly once: one subscriber.created per subscriber, one import.completed per import
    await stop(child, 'SIGTERM');
    const handle = await openDb(store.url ? { url: store.url } : { dataDir: store.dataDir });
    try {
      const counts = await handle.db
        .selectFrom('events')
        .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('type')
        .execute();
      const by = Object.fromEntries(counts.map((c) => [c.type, Number(c.n)]));
      assert.equal(by['subscriber.created'], ROWS);
      assert.equal(by['import.completed'], 2);
      assert.equal(by['subscriber.updated'], EXISTING);
    } finally {
      await handle.close();
    }
  },
);
