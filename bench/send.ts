// npm run bench -- send [--recipients 100000] [--concurrency 10] [--batch 500] [--provider-limits JSON]
//                       [--baselines all|none]
// A campaign to N recipients on PostgreSQL, sent by the real server (a child process)
// over SMTP to an smtp-server sink in ANOTHER process; in the same run the baseline: a bare pooled
// nodemailer blast of the same messages (same size, same headers, same connections) to the same sink.
// Prints msg/s for both, the ratio (target ≥ 0.8) and the server's RSS before, peak and growth during the
// send (target < 100 MB growth). A second baseline sends the same messages the way Mailgrove's transport
// does (composed by mail/mime.ts, sent through mail/smtpPool.ts) with nothing else: the floor for this
// design, so the ratio to it is what the ledger, rendering and database cost.
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { prepareCampaign } from '../src/domain/delivery/message.ts';
import { composeMessage } from '../src/mail/mime.ts';
import { SmtpPool } from '../src/mail/smtpPool.ts';
import { extractLinks } from '../src/mail/tracking.ts';
import { startSinkProcess, type Sink } from './sinkProcess.ts';
import { fmt, freshDatabase, newAccount, startServer } from './support.ts';

const SUBJECT = 'Spring news for {{ subscriber.first_name }}';
// ~2.5 KB of HTML with personalisation and three tracked links: a typical newsletter body
const HTML =
  '<html><body><h1>Hello {{ subscriber.first_name | default: "there" }}</h1>' +
  '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>'.repeat(
    12,
  ) +
  '<p><a href="https://example.org/spring">Read more</a> · <a href="https://example.org/shop?utm=mail">Shop</a> · <a href="https://example.org/about">About</a></p>' +
  '<p>{{ subscriber.custom_fields.company }}</p></body></html>';

export default async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      recipients: { type: 'string', default: '100000' },
      concurrency: { type: 'string', default: '10' },
      batch: { type: 'string', default: '500' },
      // per-provider throttling stays on, its limits raised out of the way (every recipient is one provider)
      'provider-limits': { type: 'string', default: '{"*":{"concurrency":1000,"per_second":1000000}}' },
      // none: only the Mailgrove send (a 1,000,000 run, whose baselines would take longer than the send)
      baselines: { type: 'string', default: 'all' },
    },
  });
  const withBaselines = values.baselines !== 'none';
  const skipped = { seconds: NaN, cpu: NaN, rssBeforeKb: 0, rssPeakKb: 0 };
  const n = Number(values.recipients);
  const concurrency = Number(values.concurrency);
  const sink = await startSinkProcess();
  const db = await freshDatabase('mg_bench_send');
  const server = await startServer({
    DATABASE_URL: db.url,
    SMTP_URL: sink.url,
    ALLOW_INSECURE_PUBLIC_URL: 'true',
    SEND_CONCURRENCY: String(concurrency),
    SEND_BATCH_SIZE: values.batch!,
    PROVIDER_LIMITS: values['provider-limits']!,
    WORKER_POLL_MS: '200',
  });
  try {
    const { accountId, key } = await newAccount(server, n + 10);
    const groupId = await seed(db.url, accountId, n);
    console.log(
      `Send: ${fmt(n)} recipients on PostgreSQL, SEND_CONCURRENCY ${concurrency}, sink in another process (pid ${sink.pid})`,
    );

    // the baseline runs before AND after the Mailgrove send and the two are averaged: on a shared machine
    // the load drifts during a run, and a single baseline on one side of it skews the ratio
    const blast1 = withBaselines ? await baseline(sink, n, concurrency, server.url, false) : skipped;
    if (withBaselines)
      console.log(
        `  baseline 1 (bare pooled nodemailer, ${concurrency} connections, same messages): ${blast1.seconds.toFixed(1)} s = ${fmt(n / blast1.seconds)} msg/s (${blast1.cpu.toFixed(1)} CPU s; bench process RSS ${mb(blast1.rssBeforeKb)} → peak ${mb(blast1.rssPeakKb)})`,
      );
    await sink.reset();
    const raw1 = withBaselines ? await baseline(sink, n, concurrency, server.url, true) : skipped;
    if (withBaselines)
      console.log(
        `  raw baseline 1 (same messages, mail/mime.ts + mail/smtpPool.ts alone): ${raw1.seconds.toFixed(1)} s = ${fmt(n / raw1.seconds)} msg/s (${raw1.cpu.toFixed(1)} CPU s)`,
      );

    await sink.reset();
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}/api/v1/external${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const campaign = await api('POST', '/campaigns', {
      name: 'Bench',
      subject: SUBJECT,
      from_name: 'Bench',
      from_email: 'bench@example.org',
      content_html: HTML,
      group_ids: [groupId],
    });
    const before = server.memory();
    let peakRss = before.rssKb;
    // RSS once a tenth is sent (the heap has grown to its working size) and the peak after that: growth
    // proportional to the audience would show between the two, a warm-up plateau would not
    let atTenth: number | undefined;
    let peakAfterTenth = 0;
    const sampler = setInterval(() => {
      const rss = server.memory().rssKb;
      peakRss = Math.max(peakRss, rss);
      if (atTenth !== undefined) peakAfterTenth = Math.max(peakAfterTenth, rss);
    }, 250);
    const tenth = setInterval(async () => {
      if (atTenth === undefined && (await sink.count()).total >= n / 10) atTenth = server.memory().rssKb;
    }, 500);
    const cpu0 = cpuSeconds(server.pid);
    const dbName = new URL(db.url).pathname.slice(1);
    const pgCpu0 = postgresCpuSeconds(dbName);
    const size0 = await databaseBytes(db.url);
    const t0 = performance.now();
    const scheduled = await api('POST', `/campaigns/${campaign.data.id}/schedule`, { delivery: 'instant' });
    const frozen = (performance.now() - t0) / 1000;
    let status = scheduled.data?.status;
    let stats: any;
    while (status !== 'sent') {
      await new Promise((r) => setTimeout(r, 500));
      const c = await api('GET', `/campaigns/${campaign.data.id}`);
      status = c.data.status;
      stats = c.data.stats;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid) - cpu0;
    const pgCpu = postgresCpuSeconds(dbName) - pgCpu0;
    clearInterval(sampler);
    clearInterval(tenth);
    const counted = await sink.count();
    const size1 = await databaseBytes(db.url);
    const after = server.memory();
    await sink.reset();
    const raw2 = withBaselines ? await baseline(sink, n, concurrency, server.url, true) : skipped;
    if (withBaselines)
      console.log(
        `  raw baseline 2 (after the send): ${raw2.seconds.toFixed(1)} s = ${fmt(n / raw2.seconds)} msg/s (${raw2.cpu.toFixed(1)} CPU s)`,
      );
    await sink.reset();
    const blast2 = withBaselines ? await baseline(sink, n, concurrency, server.url, false) : skipped;
    if (withBaselines)
      console.log(
        `  baseline 2 (after the send): ${blast2.seconds.toFixed(1)} s = ${fmt(n / blast2.seconds)} msg/s (${blast2.cpu.toFixed(1)} CPU s; RSS ${mb(blast2.rssBeforeKb)} → peak ${mb(blast2.rssPeakKb)})`,
      );
    const blast = { seconds: (blast1.seconds + blast2.seconds) / 2, cpu: (blast1.cpu + blast2.cpu) / 2 };
    const raw = { seconds: (raw1.seconds + raw2.seconds) / 2, cpu: (raw1.cpu + raw2.cpu) / 2 };
    console.log(
      `  mailgrove (schedule → status sent, incl. freezing the audience ${frozen.toFixed(1)} s): ${seconds.toFixed(1)} s = ${fmt(n / seconds)} msg/s (server ${cpu.toFixed(1)} CPU s, PostgreSQL ${pgCpu.toFixed(1)} CPU s)`,
    );
    console.log(
      `  sink: ${fmt(counted.total)} messages, ${fmt(counted.distinct)} distinct recipients; ledger sent ${fmt(stats.sent)}, failed ${stats.failed}, interrupted ${stats.interrupted}`,
    );
    console.log(
      `  database size: ${mb(size0 / 1024)} before the schedule, ${mb(size1 / 1024)} when sent (growth ${mb((size1 - size0) / 1024)})`,
    );
    if (withBaselines)
      console.log(
        `  ratio mailgrove/baseline (msg/s, mean baseline): ${(blast.seconds / seconds).toFixed(2)} (target ≥ 0.8); CPU per message: ${(blast.cpu / cpu).toFixed(2)} of the baseline's efficiency`,
      );
    if (withBaselines)
      console.log(
        `  ratio mailgrove/raw baseline (msg/s, mean): ${(raw.seconds / seconds).toFixed(2)}; CPU per message: ${(raw.cpu / cpu).toFixed(2)}`,
      );
    console.log(
      `  server RSS: ${mb(before.rssKb)} before, ${mb(peakRss)} peak during the send (growth ${mb(peakRss - before.rssKb)}, target < 100 MB), ${mb(after.rssKb)} after; VmHWM ${mb(after.hwmKb)}`,
    );
    if (atTenth !== undefined)
      console.log(
        `  server RSS from 10 % sent to the end: ${mb(atTenth)} → peak ${mb(peakAfterTenth)} (growth ${mb(peakAfterTenth - atTenth)})`,
      );
  } finally {
    await server.stop();
    sink.child.kill();
    await db.drop();
  }
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

async function databaseBytes(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query('select pg_database_size(current_database()) as n')).rows[0].n);
  } finally {
    await c.end();
  }
}

/** n subscribers in one group, set-based (setup, not measured). */
async function seed(url: string, accountId: string, n: number): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const g = await c.query(`insert into groups (account_id, name) values ($1, 'Bench audience') returning id`, [
      accountId,
    ]);
    const groupId = g.rows[0].id as string;
    await c.query(
      `with s as (
         insert into subscribers (account_id, email, first_name, custom_fields)
         select $1, 'bench' || i || '@example.net', 'Name' || i, jsonb_build_object('company', 'Company ' || i)
         from generate_series(1, $2::int) i returning id)
       insert into subscriber_groups (group_id, subscriber_id, account_id) select $3, id, $1 from s`,
      [accountId, n, groupId],
    );
    await c.query('analyze');
    return groupId;
  } finally {
    await c.end();
  }
}

/**
 * The bare blast of the same messages: one message rendered by Mailgrove itself (same HTML, text part,
 * tracked links, pixel, footer and headers, so the same bytes on the wire), personalised per recipient by
 * plain string replacement, handed to a pooled nodemailer transport with the same number of connections.
 * `raw`: composed by mail/mime.ts and sent through mail/smtpPool.ts, as Mailgrove's transport does.
 */
async function baseline(
  sink: Sink,
  n: number,
  concurrency: number,
  serverUrl: string,
  raw: boolean,
): Promise<{ seconds: number; cpu: number; rssBeforeKb: number; rssPeakKb: number }> {
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: concurrency,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    ignoreTLS: true,
  } as any);
  const pool = new SmtpPool({
    maxConnections: concurrency,
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    ignoreTLS: true,
    tls: { rejectUnauthorized: true },
  });
  const config = { ...loadConfig({ PUBLIC_URL: serverUrl }, {}), secret: 'bench-secret' };
  const campaign = {
    id: '8f0c3a5e-3b7e-4a52-9a49-1f6f0d7e2b11',
    account_id: '5b8e2c1d-9f3a-4c6b-8e7d-2a1b3c4d5e6f',
    name: 'Bench',
    subject: SUBJECT,
    content_html: HTML,
    content_text: null,
    preview_text: null,
    from_name: 'Bench',
    from_email: 'bench@example.org',
    reply_to: null,
  } as any;
  const links = extractLinks(HTML).map((url, idx) => ({ idx, url }));
  const sample = prepareCampaign(
    config,
    campaign,
    { default_from_name: null, default_from_email: null, default_reply_to: null, tracking_enabled: true },
    links,
  ).build({
    id: '00000000-0000-4000-8000-000000000000',
    email: 'RCPT@example.net',
    first_name: 'NAME',
    custom_fields: { company: 'Company NAME' },
  });
  const cpu0 = process.cpuUsage();
  const rss0 = process.memoryUsage().rss;
  let rssPeak = rss0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  const t0 = performance.now();
  const window = new Set<Promise<unknown>>();
  for (let i = 1; i <= n; i++) {
    const name = `Name${i}`;
    const message = {
      from: sample.from,
      to: `bench${i}@example.net`,
      subject: sample.subject.replace('NAME', name),
      html: sample.html!.replaceAll('NAME', name),
      text: sample.text!.replaceAll('NAME', name),
      headers: sample.headers,
      messageId: `${i}-${sample.messageId}`,
    };
    const composed = raw ? composeMessage(message)! : undefined;
    const p = (
      composed
        ? pool.send(composed.envelope, composed.raw)
        : transport.sendMail({ ...message, messageId: `<${message.messageId}>` })
    ).finally(() => window.delete(p));
    window.add(p);
    if (window.size >= concurrency * 2) await Promise.race(window);
  }
  await Promise.all(window);
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  clearInterval(sampler);
  transport.close();
  pool.close();
  const c = await sink.count();
  if (c.total !== n) throw new Error(`baseline: the sink got ${c.total} of ${n}`);
  return { seconds, cpu: (used.user + used.system) / 1e6, rssBeforeKb: rss0 / 1024, rssPeakKb: rssPeak / 1024 };
}

/**
 * CPU seconds so far of the PostgreSQL backends serving this database (the database's share of the
 * send's work); a backend that exits meanwhile takes its seconds with it, so this is a lower bound.
 */
function postgresCpuSeconds(dbName: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.includes(` ${dbName} `)) total += cpuSeconds(Number(pid));
    } catch {} // the process ended meanwhile
  }
  return total;
}

/** user + system CPU seconds of a process so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
}
