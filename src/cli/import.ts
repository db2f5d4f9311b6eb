// mailgrove import FILE.csv: uploads through the REST import endpoint (streamed from disk, never read
// whole) and follows the job with a progress bar on stderr until it completes or fails.
// Exit code 0 = completed (rows that failed are listed), 1 = the upload was refused or the job failed.
import { openAsBlob, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { POINT_IMPORT, reach } from './reach.ts';

const USAGE = 'Usage: mailgrove import FILE.csv --key API_KEY [--group GROUP_ID]… [--url http://host:port]';

interface Job {
  job_id: string;
  status: 'processing' | 'completed' | 'failed';
  message: string;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  failed_count: number;
  errors: { row: number; email: string | null; reason: string }[];
}

export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      group: { type: 'string', multiple: true },
      url: { type: 'string' },
      'poll-ms': { type: 'string', default: '500' },
    },
  });
  const file = positionals[0];
  if (!file || !values.key) {
    console.error(USAGE);
    return 2;
  }
  const base = `${(values.url ?? config.MAILGROVE_URL ?? config.publicUrl).replace(/\/+$/, '')}/api/v1/external`;
  const headers = { authorization: `Bearer ${values.key}` };
  const size = statSync(file).size;

  const form = new FormData();
  if (values.group?.length) form.append('group_ids', JSON.stringify(values.group));
  // a file-backed Blob: fetch streams it from disk
  form.append('file', await openAsBlob(file, { type: 'text/csv' }), basename(file));
  process.stderr.write(`Uploading ${basename(file)} (${formatBytes(size)})…\n`);
  const res = await reach(`${base}/subscribers/import-async`, { method: 'POST', headers, body: form }, POINT_IMPORT);
  const started = (await res.json().catch(() => ({}))) as {
    success?: boolean;
    data?: any;
    error?: string;
    message?: string;
  };
  if (res.status !== 200 || !started.success) {
    console.error(
      `Import refused (${res.status}): ${started.error ?? res.statusText}${started.message ? ` — ${started.message}` : ''}${started.data ? ` ${JSON.stringify(started.data)}` : ''}`,
    );
    return 1;
  }
  let job = started.data as Job;
  const bar = progressBar();
  while (job.status === 'processing') {
    bar.draw(job);
    await new Promise((r) => setTimeout(r, Number(values['poll-ms'])));
    const poll = await reach(`${base}/imports/${job.job_id}`, { headers }, POINT_IMPORT);
    if (poll.status === 429) continue;
    const body = (await poll.json()) as { data: Job; error?: string };
    if (!poll.ok) throw new Error(`GET /imports/${job.job_id}: ${poll.status} ${body.error ?? ''}`);
    job = body.data;
  }
  bar.draw(job);
  bar.end();
  for (const e of job.errors.slice(0, 20))
    process.stderr.write(`  row ${e.row}${e.email ? ` (${e.email})` : ''}: ${e.reason}\n`);
  if (job.failed_count > 20)
    process.stderr.write(`  … ${job.failed_count - Math.min(20, job.errors.length)} more failed rows\n`);
  console.log(job.message);
  return job.status === 'completed' ? 0 : 1;
}

function progressBar() {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  return {
    draw(job: Job) {
      const share = job.total_rows > 0 ? job.processed_rows / job.total_rows : 1;
      const width = 30;
      const filled = Math.round(share * width);
      const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${job.processed_rows.toLocaleString('en')}/${job.total_rows.toLocaleString('en')} rows · ${job.created_count.toLocaleString('en')} created · ${job.updated_count.toLocaleString('en')} updated · ${job.failed_count.toLocaleString('en')} failed`;
      if (tty) process.stderr.write(`\r${line}`);
      else if (Date.now() - lastLine > 2000 || job.status !== 'processing') {
        process.stderr.write(`${line}\n`);
        lastLine = Date.now();
      }
    },
    end() {
      if (tty) process.stderr.write('\n');
    },
  };
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}
