// A catalogue of awkward and broken CSV uploads, each sent through the real import endpoint with the answer
// it must get: a 4xx in the spec's envelope before any job exists, or a job that ends (completed or failed,
// with per-row errors) and never stays processing. The server must stay healthy after every one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';
import { textChecker } from '../../../src/domain/imports/fileCheck.ts';
import { signedIn } from '../dashboard/session.ts';

const LIMIT = 8 * 1024 * 1024;
const s = await startServer(fileScope, { WORKER_POLL_MS: 200, IMPORT_MAX_BYTES: LIMIT, REST_RATE_LIMIT: 100_000 });

const BOUNDARY = 'mailgrove-test-boundary';
const bytes = (...parts: (string | number[] | Uint8Array)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p as Uint8Array))));

/** A multipart body written by hand, so a test can break it. */
function multipart(parts: { name: string; filename?: string; content: string | Uint8Array }[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename ? 'Content-Type: text/csv\r\n' : '';
    chunks.push(bytes(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`, p.content, '\r\n'));
  }
  if (close) chunks.push(bytes(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}
const fileBody = (content: string | Uint8Array) => multipart([{ name: 'file', filename: 'list.csv', content }]);

interface Sent {
  body: Buffer | string;
  contentType?: string;
}
type Expected =
  | { status: number; error: RegExp }
  | { job: 'completed' | 'failed'; check?: (job: any, key: string) => void | Promise<void> };

const rows = (n: number, prefix = 'u') => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`).join('\n');
const pngHeader = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52];
// a PDF opens with a text line and binary bytes after it, like this one's
const pdfHeader = bytes('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
const wide = ['email', ...Array.from({ length: 19_999 }, (_, i) => `column_${i}`)].join(',');

const CASES: { name: string; sent: Sent; expected: Expected }[] = [
  {
    name: 'a PNG image',
    sent: { body: fileBody(new Uint8Array(pngHeader)) },
    expected: { status: 400, error: /^File is not a CSV/ },
  },
  {
    name: 'a PDF document',
    sent: { body: fileBody(pdfHeader) },
    expected: { status: 400, error: /^File is not a CSV: it is a PDF/ },
  },
  {
    name: 'a JSON array',
    sent: { body: fileBody('[\n  {"email": "ada@example.com", "first_name": "Ada"}\n]\n') },
    expected: { status: 400, error: /^File is not a CSV: it looks like JSON/ },
  },
  {
    name: 'a JSON array on one line',
    sent: { body: fileBody('[{"email":"ada@example.com"},{"email":"bob@example.com"}]') },
    expected: { status: 400, error: /^File is not a CSV: it looks like JSON/ },
  },
  {
    name: 'a JSON object',
    sent: { body: fileBody('{"subscribers": [{"email": "ada@example.com"}]}') },
    expected: { status: 400, error: /^File is not a CSV: it looks like JSON/ },
  },
  {
    name: 'an unclosed quote in the header',
    sent: { body: fileBody('email,"first_name\nada@example.com,Ada\n') },
    expected: { status: 400, error: /^File is not a valid CSV: row 1 opens a quote that is never closed/ },
  },
  {
    name: 'a stray quote inside a header name',
    sent: { body: fileBody('email,first"name\nada@example.com,Ada\n') },
    expected: {
      job: 'completed',
      check: (job) =>
        assert.deepEqual([job.created_count, job.failed_count, job.message.includes('first"name')], [1, 0, true]),
    },
  },
  {
    name: 'an unclosed quote in a row',
    sent: { body: fileBody('email,first_name\nada@example.com,Ada\n"bob@example.com,Bob\ncy@example.com,Cy\n') },
    expected: { status: 400, error: /^File is not a valid CSV: row 3 opens a quote that is never closed/ },
  },
  {
    name: 'a stray quote inside a row',
    sent: { body: fileBody('email,first_name\nada@example.com,Ada\nbob@exa"mple.com,Bob\ncy@example.com,C"y\n') },
    expected: {
      job: 'completed',
      check: (job) => {
        assert.deepEqual([job.created_count, job.failed_count], [2, 1]);
        assert.deepEqual(job.errors, [
          { row: 3, email: 'bob@exa"mple.com', reason: 'A valid email address is required' },
        ]);
      },
    },
  },
  {
    name: 'an empty file (0 bytes)',
    sent: { body: fileBody('') },
    expected: { status: 400, error: /^File is not a CSV: it is empty/ },
  },
  {
    name: 'only blank lines',
    sent: { body: fileBody('\n\r\n\n') },
    expected: { status: 400, error: /^File is not a CSV: it is empty/ },
  },
  {
    name: 'a header and no rows',
    sent: { body: fileBody('email,first_name\n') },
    expected: { job: 'completed', check: (job) => assert.deepEqual([job.total_rows, job.created_count], [0, 0]) },
  },
  {
    name: 'a UTF-8 BOM before the header',
    sent: { body: fileBody(bytes([0xef, 0xbb, 0xbf], 'email,first_name\nada@example.com,Ada\n')) },
    expected: {
      job: 'completed',
      check: (job) =>
        assert.deepEqual([job.created_count, job.failed_count, job.message.includes('Ignored')], [1, 0, false]),
    },
  },
  {
    name: '";" as the delimiter',
    sent: { body: fileBody('email;first_name\nada@example.com;Ada, the first\n') },
    expected: { job: 'completed', check: (job) => assert.deepEqual([job.created_count, job.failed_count], [1, 0]) },
  },
  {
    name: 'tab as the delimiter',
    sent: { body: fileBody('email\tfirst_name\nada@example.com\tAda\n') },
    expected: { job: 'completed', check: (job) => assert.deepEqual([job.created_count, job.failed_count], [1, 0]) },
  },
  {
    name: 'CRLF line ends',
    sent: { body: fileBody('email,first_name\r\nada@example.com,Ada\r\nbob@example.com,Bob\r\n') },
    expected: {
      job: 'completed',
      check: async (job, key) => {
        assert.deepEqual([job.created_count, job.failed_count], [2, 0]);
        const found = await restClient(s.url, key).get('/subscribers?search=bob@');
        assert.equal(found.body.data.subscribers[0].first_name, 'Bob');
      },
    },
  },
  {
    name: 'UTF-8 names over many chunks (characters split between chunks are not refused)',
    sent: {
      body: fileBody(
        [
          'email,first_name',
          ...Array.from({ length: 2000 }, (_, i) => `u${i}@example.com,Zoë 日本 ${'é'.repeat(60)}`),
        ].join('\n'),
      ),
    },
    expected: {
      job: 'completed',
      check: async (job, key) => {
        assert.deepEqual([job.created_count, job.failed_count], [2000, 0]);
        const found = await restClient(s.url, key).get('/subscribers?search=u1999@');
        assert.equal(found.body.data.subscribers[0].first_name, `Zoë 日本 ${'é'.repeat(60)}`);
      },
    },
  },
  {
    name: 'bytes that are not UTF-8 (a Latin-1 export)',
    sent: { body: fileBody(bytes('email,first_name\nada@example.com,Ad', [0xe9], 'le\n')) },
    expected: { status: 400, error: /^File is not UTF-8 text.*line 2/ },
  },
  {
    name: 'a 5 MB field',
    sent: { body: fileBody(`email,first_name\nada@example.com,${'A'.repeat(5 * 1024 * 1024)}\nbob@example.com,Bob\n`) },
    expected: {
      job: 'completed',
      check: (job) => {
        assert.deepEqual([job.created_count, job.failed_count], [1, 1]);
        assert.match(job.errors[0].reason, /first_name/);
      },
    },
  },
  {
    name: 'a 5 MB address',
    sent: { body: fileBody(`email\n${'a'.repeat(5 * 1024 * 1024)}@example.com\nbob@example.com\n`) },
    expected: {
      job: 'completed',
      check: (job) => {
        assert.deepEqual([job.created_count, job.failed_count], [1, 1]);
        assert.ok(job.errors[0].email.length <= 320, 'the error list keeps a short address');
      },
    },
  },
  {
    name: '20,000 columns',
    sent: { body: fileBody(`${wide}\nada@example.com\n`) },
    expected: {
      job: 'completed',
      check: (job) => {
        assert.equal(job.created_count, 1);
        assert.match(job.message, /Ignored unknown columns: column_0, .* and 19989 more\.$/);
        assert.ok(job.message.length < 1000, 'the message names a few ignored columns');
      },
    },
  },
  {
    name: 'a duplicate email column',
    sent: { body: fileBody('email,first_name,Email\nada@example.com,Ada,other@example.com\n') },
    expected: { status: 400, error: /^Duplicate column: "Email" .*"email"/ },
  },
  {
    name: 'no email column',
    sent: { body: fileBody('name,phone\nAda,+44123\n') },
    expected: { status: 400, error: /^No email column/ },
  },
  {
    name: 'no file part',
    sent: { body: multipart([{ name: 'group_ids', content: '[]' }]) },
    expected: { status: 400, error: /A CSV file is required/ },
  },
  {
    name: 'the file under another field name',
    sent: { body: multipart([{ name: 'upload', filename: 'list.csv', content: 'email\nada@example.com\n' }]) },
    expected: { status: 400, error: /Unknown form field "upload"/ },
  },
  {
    name: 'group ids under another field name',
    sent: {
      body: multipart([
        { name: 'groupIds', content: '[]' },
        { name: 'file', filename: 'list.csv', content: 'email\nada@example.com\n' },
      ]),
    },
    expected: { status: 400, error: /Unknown form field "groupIds"/ },
  },
  {
    name: 'eleven form fields',
    sent: {
      body: multipart([
        ...Array.from({ length: 11 }, () => ({ name: 'group_ids', content: '[]' })),
        { name: 'file', filename: 'list.csv', content: 'email\nada@example.com\n' },
      ]),
    },
    expected: { status: 400, error: /^Too many form fields/ },
  },
  {
    name: 'multipart without a boundary',
    sent: { body: fileBody('email\nada@example.com\n'), contentType: 'multipart/form-data' },
    expected: { status: 400, error: /Malformed multipart body/ },
  },
  {
    name: 'a multipart body cut short inside the file',
    sent: { body: fileBody(`email\n${rows(2000)}\n`).subarray(0, 20_000) },
    expected: { status: 400, error: /Malformed multipart body/ },
  },
  {
    name: 'a multipart body without its closing boundary',
    sent: { body: multipart([{ name: 'file', filename: 'list.csv', content: 'email\nada@example.com\n' }], false) },
    expected: { status: 400, error: /Malformed multipart body/ },
  },
  {
    name: 'a file over IMPORT_MAX_BYTES',
    // one long ignored value: the limit is reached without staging thousands of rows first
    sent: { body: fileBody(`email,notes\nada@example.com,${'x'.repeat(LIMIT)}\n`) },
    expected: { status: 413, error: /^File is too large/ },
  },
  {
    name: 'a JSON body instead of a form',
    sent: { body: '{"file":"email\\nada@example.com"}', contentType: 'application/json' },
    expected: { status: 400, error: /multipart\/form-data/ },
  },
];

async function send(path: string, headers: Record<string, string>, sent: Sent) {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': sent.contentType ?? `multipart/form-data; boundary=${BOUNDARY}` },
    body: sent.body,
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, body };
}

async function check(
  expected: Expected,
  res: { status: number; body: any },
  key: string,
  job: (id: string) => Promise<any>,
  started: number,
) {
  if ('status' in expected) {
    assert.equal(res.status, expected.status, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.success, false);
    assert.match(res.body.error, expected.error);
  } else {
    assert.equal(res.status, started, JSON.stringify(res.body).slice(0, 500));
    const id = res.body.data.job_id;
    const ended = await until(`import ${id} to end`, async () => {
      const j = await job(id);
      return j.status !== 'processing' && j;
    });
    assert.equal(ended.status, expected.job, ended.message);
    await expected.check?.(ended, key);
  }
  assert.equal((await fetch(`${s.url}/api/health`)).status, 200);
}

describe('CSV import files: every bad file gets a clear answer', () => {
  for (const c of CASES)
    test(`POST /subscribers/import-async › ${c.name}`, async () => {
      const { key } = await s.newAccount();
      const api = restClient(s.url, key);
      const res = await send('/api/v1/external/subscribers/import-async', { authorization: `Bearer ${key}` }, c.sent);
      await check(c.expected, res, key, async (id) => (await api.get(`/imports/${id}`)).body.data, 200);
      if ('status' in c.expected) assert.equal((await api.get('/imports')).body.data.pagination.total_count, 0);
    });

  const dashboard = new Set([
    'a JSON array',
    'an unclosed quote in a row',
    'a multipart body cut short inside the file',
    'a file over IMPORT_MAX_BYTES',
    'CRLF line ends',
  ]);
  for (const c of CASES.filter((c) => dashboard.has(c.name)))
    test(`dashboard POST /app/api/imports › ${c.name}`, async () => {
      const { client, accountId } = await signedIn(s);
      const { key } = await s.newKey(accountId);
      const cookie = [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await send('/app/api/imports', { cookie, 'x-mailgrove-csrf': '1' }, c.sent);
      await check(c.expected, res, key, async (id) => (await client.get(`/imports/${id}`)).body.data, 201);
    });
});

describe('the UTF-8 check of an upload, fed one byte at a time', () => {
  const feed = (b: Buffer) => {
    const check = textChecker();
    for (let i = 0; i < b.length; i++) check.chunk(b.subarray(i, i + 1));
    check.end();
  };
  test('every character split between chunks is read whole', () => {
    feed(Buffer.from('email,first_name\nzoe@example.com,Zoë 日本 😀\n'));
  });
  test('a bad byte is refused with its line, and so is a character cut off by the end of the file', () => {
    assert.throws(() => feed(bytes('a\nb\nc', [0xe9], 'd\n')), /line 3 has bytes that are not UTF-8/);
    assert.throws(() => feed(bytes('a\nb', [0xe6, 0x97])), /line 2 has bytes that are not UTF-8/);
    assert.throws(() => feed(bytes('a', [0xed, 0xa0, 0x80], '\n')), /line 1/); // an encoded surrogate
  });
});

describe('hostile CSV files while the service keeps answering', () => {
  /**
   * Polls GET /api/health while `work` runs: the slowest answer, and the slowest while the server's event
   * loop (this process's) was itself held up by 100 ms or more. A slow answer while the loop ran freely is
   * time the machine gave to other processes, not work the import did on the loop.
   */
  async function watched<T>(work: () => Promise<T>) {
    let polling = true;
    let [slowest, slowestStalled, answers, loopMax] = [0, 0, 0, 0];
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const poll = (async () => {
      while (polling) {
        loop.reset();
        const started = performance.now();
        assert.equal((await fetch(`${s.url}/api/health`)).status, 200);
        const ms = performance.now() - started;
        const loopMs = loop.max / 1e6;
        [slowest, loopMax, answers] = [Math.max(slowest, ms), Math.max(loopMax, loopMs), answers + 1];
        if (loopMs >= 100) slowestStalled = Math.max(slowestStalled, ms);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const result = await work();
    polling = false;
    await poll;
    loop.disable();
    return {
      result,
      slowest,
      slowestStalled,
      text: `${answers} answers, slowest ${Math.round(slowest)} ms (${Math.round(slowestStalled)} ms with the loop held up), loop delay max ${Math.round(loopMax)} ms`,
    };
  }

  test('three hostile uploads at once are refused with their reason while GET /api/health answers within 500 ms', async (t) => {
    const { key } = await s.newAccount();
    const hostile: [string, RegExp][] = [
      [`email\nada@example.com${',x'.repeat(1_000_000)}\n`, /row 2 has more than 32,768 columns/],
      [','.repeat(7 * 1024 * 1024), /row 1 has more than 32,768 columns/],
      [
        `email,first_name\n"ada@example.com,${'A'.repeat(7 * 1024 * 1024)}\n`,
        /row 2 opens a quote that is never closed/,
      ],
    ];
    // built before the clock starts: the test's own work is not the server's
    const bodies = hostile.map(([content]) => fileBody(content));
    const during = await watched(() =>
      Promise.all(
        bodies.map((body) =>
          send('/api/v1/external/subscribers/import-async', { authorization: `Bearer ${key}` }, { body }),
        ),
      ),
    );
    during.result.forEach((res, i) => {
      assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
      assert.match(res.body.error, hostile[i]![1]);
    });
    t.diagnostic(`during the uploads: ${during.text}`);
    assert.ok(during.slowestStalled < 500, `health took up to ${Math.round(during.slowestStalled)} ms: ${during.text}`);
    assert.ok(during.slowest < 2000, `health took up to ${Math.round(during.slowest)} ms: ${during.text}`);
  });
});
