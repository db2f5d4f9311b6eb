// npm run bench -- import [--rows 1000000] [--pglite-rows 100000] [--skip-pg] [--skip-pglite]
// A generated CSV (email, first_name, last_name, 2 custom fields; 10 % already
// subscribed, 1 % invalid) imported through the real endpoint of a real server process, on PostgreSQL
// and on PGlite. On PostgreSQL the same run measures the baseline: COPY of the same file into a staging
// table + one INSERT … ON CONFLICT into a copy of the subscribers table with the same indexes.
// Prints rows/s, the ratio import/baseline (target ≥ 1.0), the server's RSS (target: flat), the server
// process's CPU seconds (on PGlite the database runs inside it: the load-independent cost of the import),
// and the load average, since other work on the machine slows every number down.
import { chmodSync, createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt, freshDatabase, newAccount, startServer, type ServerProcess } from './support.ts';

interface ImportRun {
  rows: number;
  seconds: number;
  uploadSeconds: number;
  rssBeforeKb: number;
  rssPeakKb: number;
  hwmKb: number;
  /** CPU seconds the server process used from upload to completed (on PGlite: the database too) */
  cpuSeconds: number;
  message: string;
}

export default async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string', default: '1000000' },
      'pglite-rows': { type: 'string', default: '100000' },
      'skip-pg': { type: 'boolean' },
      'skip-pglite': { type: 'boolean' },
    },
  });
  const rows = Number(values.rows);
  const pgliteRows = Number(values['pglite-rows']);
  const dir = tmpdir();
  const stamp = Date.now().toString(36);

  if (!values['skip-pg']) {
    const file = join(dir, `mailgrove-bench-${stamp}.csv`);
    await writeCsv(file, rows);
    chmodSync(file, 0o644); // the PostgreSQL server process reads it for the baseline COPY
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `PostgreSQL: ${fmt(rows)} rows (${(statSync(file).size / 1024 / 1024).toFixed(0)} MB), 10 % existing, 1 % invalid`,
    );
    const db = await freshDatabase('mg_bench_import');
    const server = await startServer({ DATABASE_URL: db.url, WORKER_POLL_MS: '200' });
    try {
      const { accountId, key } = await prepare(server, rows / 10);
      const imp = await importFile(server, key, file, rows);
      report('import (endpoint → completed)', imp);
      const base = await baseline(db.url, accountId, file);
      console.log(
        `  baseline COPY + INSERT … ON CONFLICT: ${base.seconds.toFixed(1)} s = ${fmt(rows / base.seconds)} rows/s (COPY ${base.copySeconds.toFixed(1)} s, upsert ${(base.seconds - base.copySeconds).toFixed(1)} s)`,
      );
      console.log(`  ratio import/baseline: ${(base.seconds / imp.seconds).toFixed(2)} (target ≥ 1.0)`);
      const same = await baseline(db.url, accountId, file, true);
      console.log(
        `  same-work baseline (COPY + one upsert + one event per subscriber, same indexes): ${same.seconds.toFixed(1)} s = ${fmt(rows / same.seconds)} rows/s`,
      );
      console.log(`  ratio import/same-work baseline: ${(same.seconds / imp.seconds).toFixed(2)}`);
      console.log(
        `  load average after: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
    } finally {
      await server.stop();
      await db.drop();
      rmSync(file, { force: true });
    }
  }

  if (!values['skip-pglite']) {
    const file = join(dir, `mailgrove-bench-${stamp}-pglite.csv`);
    await writeCsv(file, pgliteRows);
    const dataDir = mkdtempSync(join(dir, 'mailgrove-bench-pglite-'));
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(`PGlite: ${fmt(pgliteRows)} rows, 10 % existing, 1 % invalid`);
    const server = await startServer({ MAILGROVE_DATA_DIR: dataDir, DATABASE_URL: '', WORKER_POLL_MS: '200' });
    try {
      const { key } = await prepare(server, pgliteRows / 10);
      const imp = await importFile(server, key, file, pgliteRows);
      report('import (endpoint → completed)', imp);
      console.log(`  target: < 10 s — ${imp.seconds < 10 ? 'met' : 'NOT met'}`);
      console.log(
        `  load average after: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(file, { force: true });
    }
  }
}

function report(label: string, r: ImportRun) {
  console.log(
    `  ${label}: ${r.seconds.toFixed(1)} s = ${fmt(r.rows / r.seconds)} rows/s (upload + staging ${r.uploadSeconds.toFixed(1)} s) — ${r.message}`,
  );
  console.log(
    `  server process CPU: ${r.cpuSeconds.toFixed(1)} s (user + system; what the run costs without other load, PGlite included)`,
  );
  console.log(
    `  server RSS: ${fmt(r.rssBeforeKb / 1024)} MB before, ${fmt(r.rssPeakKb / 1024)} MB peak during the import (VmHWM ${fmt(r.hwmKb / 1024)} MB)`,
  );
}

const CSV_HEADER = 'email,first_name,last_name,company,score\n';
function line(i: number): string {
  const email = i % 100 === 50 ? `not-an-email-${i}` : `user${i}@example.com`;
  return `${email},First${i},Last${i},Company ${i % 5000},${i % 1000}\n`;
}

/** Streams the CSV to disk: the bench must not hold a million rows either. */
async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write(CSV_HEADER);
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += line(i);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** The account, its two custom fields, and the 10 % that already exist (imported first, not timed). */
async function prepare(server: ServerProcess, existing: number) {
  const acc = await newAccount(server, 100_000_000);
  for (const field of [
    { key: 'company', type: 'text' },
    { key: 'score', type: 'number' },
  ]) {
    const res = await fetch(`${server.url}/api/v1/external/fields`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acc.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(field),
    });
    if (res.status !== 201) throw new Error(`field ${field.key}: ${res.status}`);
  }
  const seed = join(tmpdir(), `mailgrove-bench-seed-${Date.now().toString(36)}.csv`);
  const out = createWriteStream(seed);
  out.write('email,first_name\n');
  for (let i = 0; i < existing; i++) if (i % 100 !== 50) out.write(`USER${i}@example.com,Old\n`);
  out.end();
  await once(out, 'finish');
  await importFile(server, acc.key, seed, existing);
  rmSync(seed, { force: true });
  return acc;
}

async function importFile(server: ServerProcess, key: string, file: string, rows: number): Promise<ImportRun> {
  const headers = { authorization: `Bearer ${key}` };
  const rssBeforeKb = server.memory().rssKb;
  const cpuBefore = server.cpuSeconds();
  let rssPeakKb = rssBeforeKb;
  const sampler = setInterval(() => (rssPeakKb = Math.max(rssPeakKb, server.memory().rssKb)), 100);
  const form = new FormData();
  form.append('file', await openAsBlob(file, { type: 'text/csv' }), 'bench.csv');
  const t0 = performance.now();
  try {
    const res = await fetch(`${server.url}/api/v1/external/subscribers/import-async`, {
      method: 'POST',
      headers,
      body: form,
    });
    const started = (await res.json()) as { data: { job_id: string }; error?: string };
    if (res.status !== 200) throw new Error(`import refused: ${res.status} ${JSON.stringify(started)}`);
    const uploadSeconds = (performance.now() - t0) / 1000;
    for (;;) {
      const job = (
        (await (await fetch(`${server.url}/api/v1/external/imports/${started.data.job_id}`, { headers })).json()) as {
          data: { status: string; message: string };
        }
      ).data;
      if (job.status !== 'processing') {
        if (job.status !== 'completed') throw new Error(`import ${job.status}: ${job.message}`);
        const cpuSeconds = server.cpuSeconds() - cpuBefore;
        return {
          rows,
          seconds: (performance.now() - t0) / 1000,
          uploadSeconds,
          rssBeforeKb,
          rssPeakKb,
          hwmKb: server.memory().hwmKb,
          cpuSeconds,
          message: job.message,
        };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The baseline: COPY the same file into a staging table, then one INSERT … ON CONFLICT into a
 * same-indexed copy of subscribers. withEvents: the same statement also writes what the import writes
 * besides subscribers — one event per subscriber into a copy of events with its indexes (like the real tables
 * since migration 20261121_1100, neither copy has foreign keys).
 */
async function baseline(
  url: string,
  accountId: string,
  file: string,
  withEvents = false,
): Promise<{ seconds: number; copySeconds: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `drop table if exists bench_events; drop table if exists bench_subscribers; drop table if exists bench_stage`,
    );
    await c.query(`create table bench_stage (email text, first_name text, last_name text, company text, score text)`);
    await c.query(`create table bench_subscribers (like subscribers including all)`);
    await c.query(`insert into bench_subscribers select * from subscribers where account_id = $1`, [accountId]);
    if (withEvents) {
      await c.query(`create table bench_events (like events including all)`);
    }
    await c.query('vacuum analyze bench_subscribers');
    const t0 = performance.now();
    await c.query(`copy bench_stage from '${file.replace(/'/g, "''")}' with (format csv, header true)`);
    const copySeconds = (performance.now() - t0) / 1000;
    const upsert = `insert into bench_subscribers as s (account_id, email, first_name, last_name, custom_fields, source)
       select $1, email, nullif(first_name, ''), nullif(last_name, ''), jsonb_build_object('company', company, 'score', score::numeric), 'import'
       from bench_stage where email ~ '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$'
       on conflict (account_id, lower(email)) do update set
         first_name = coalesce(excluded.first_name, s.first_name), last_name = coalesce(excluded.last_name, s.last_name),
         custom_fields = s.custom_fields || excluded.custom_fields, updated_at = now()`;
    await c.query(
      withEvents
        ? `with up as (${upsert} returning s.*, (s.xmax = 0) as inserted)
           insert into bench_events (account_id, type, subscriber_id, data)
           select $1, case when inserted then 'subscriber.created' else 'subscriber.updated' end, id,
             jsonb_build_object('subscriber', jsonb_build_object('id', id, 'email', email, 'first_name', first_name, 'last_name', last_name,
               'phone', phone, 'status', status, 'custom_fields', custom_fields, 'created_at', created_at, 'updated_at', updated_at), 'source', 'import')
           from up`
        : upsert,
      [accountId],
    );
    return { seconds: (performance.now() - t0) / 1000, copySeconds };
  } finally {
    await c.end();
  }
}
