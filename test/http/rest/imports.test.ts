// The spec's "Bulk import subscribers" rows and "Import", through the real server and worker.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { importFinished, uploadCsv } from '../../support/imports.ts';
import { restClient, startServer } from '../../support/server.ts';

// one server for the file; each test isolates itself in a new account
const s = await startServer(fileScope, {
  WORKER_POLL_MS: 200,
  IMPORT_MAX_BYTES: 2 * 1024 * 1024,
  REST_RATE_LIMIT: 100_000,
});

const upload = (
  key: string,
  content: string | Uint8Array,
  opts: { groupIds?: string; filename?: string; type?: string } = {},
) =>
  uploadCsv(s.url, key, content, { ...opts, fields: opts.groupIds === undefined ? {} : { group_ids: opts.groupIds } });
const finished = (key: string, jobId: string) => importFinished(s.url, key, jobId);

async function importCsv(key: string, csv: string, opts: { groupIds?: string } = {}) {
  const res = await upload(key, csv, opts);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return finished(key, res.body.data.job_id);
}

describe('Bulk import subscribers', () => {
  test('Bulk import › 200 import started: data = job with status processing, then completed with counts', async () => {
    const { key } = await s.newAccount();
    const res = await upload(
      key,
      'email,first_name,last_name\nada@example.com,Ada,Lovelace\ngrace@example.com,Grace,Hopper\n',
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.data.status, 'processing');
    assert.match(res.body.data.job_id, /^[0-9a-f-]{36}$/);
    assert.equal(typeof res.body.data.message, 'string');
    assert.equal(res.body.data.file_name, 'list.csv');
    assert.equal(res.body.data.total_rows, 2);
    const job = await finished(key, res.body.data.job_id);
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.processed_rows, job.created_count, job.updated_count, job.failed_count], [2, 2, 0, 0]);
    assert.ok(job.finished_at);
    const list = await restClient(s.url, key).get('/subscribers?search=ada');
    assert.equal(list.body.data.subscribers[0].first_name, 'Ada');
  });

  test('Bulk import › 400 file is not a CSV (binary content, whatever its name)', async () => {
    const { key } = await s.newAccount();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const res = await upload(key, png, { filename: 'list.csv' });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.match(res.body.error, /not a CSV/);
    const empty = await upload(key, '');
    assert.equal(empty.status, 400);
    assert.match(empty.body.error, /not a CSV/);
    const broken = await upload(key, 'email,first_name\n"ada@example.com,Ada\n');
    assert.equal(broken.status, 400);
    assert.match(broken.body.error, /not a valid CSV/);
    assert.equal((await restClient(s.url, key).get('/imports')).body.data.pagination.total_count, 0);
  });

  test('Bulk import › 400 no email column', async () => {
    const { key } = await s.newAccount();
    const res = await upload(key, 'name,phone\nAda,+44123\n');
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.match(res.body.error, /No email column/);
  });

  test('Bulk import › 403 import would exceed the plan limit, with {current_count, import_count, limit}', async () => {
    const { key } = await s.newAccount({ limit: 3 });
    const api = restClient(s.url, key);
    assert.equal((await api.post('/subscribers', { email: 'old@example.com' })).status, 201);
    // an existing address (any case) is an update, not a new subscriber; a duplicate counts once
    const csv = 'email\nOLD@example.com\na@example.com\nb@example.com\nc@example.com\nA@example.com\n';
    const res = await upload(key, csv);
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      success: false,
      error: 'Import would exceed the plan limit',
      data: { current_count: 1, import_count: 3, limit: 3 },
    });
    assert.equal((await api.get('/subscribers/stats')).body.data.total, 1);
    // landing exactly on the limit is accepted
    const job = await importCsv(key, 'email\nOLD@example.com\na@example.com\nb@example.com\nA@example.com\n');
    assert.equal(job.status, 'completed');
    assert.equal((await api.get('/subscribers/stats')).body.data.total, 3);
  });

  test("Bulk import › 400 group_ids that are not a JSON array of the account's group UUIDs", async () => {
    const { key } = await s.newAccount();
    const other = await s.newAccount();
    const foreign =
      (await restClient(s.url, other.key).post('/groups', { name: 'Theirs' })).body.data?.id ??
      '00000000-0000-4000-8000-000000000000';
    for (const groupIds of ['not json', '{"a":1}', '["nope"]', JSON.stringify([foreign])]) {
      const res = await upload(key, 'email\nada@example.com\n', { groupIds });
      assert.equal(res.status, 400, groupIds);
      assert.equal(res.body.success, false);
      assert.ok(res.body.data.group_ids, JSON.stringify(res.body));
    }
    assert.equal((await restClient(s.url, key).get('/subscribers/stats')).body.data.total, 0);
  });

  test('Bulk import › email matching is case-insensitive: an existing subscriber is updated, custom_fields merged', async () => {
    const { key } = await s.newAccount();
    const api = restClient(s.url, key);
    await api.post('/fields', { key: 'company', type: 'text' });
    await api.post('/fields', { key: 'score', type: 'number' });
    const created = await api.post('/subscribers', {
      email: 'Ada@Example.com',
      first_name: 'Ada',
      last_name: 'Byron',
      custom_fields: { company: 'Analytical' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = await importCsv(key, 'EMAIL , Last Name,Score\nada@example.COM,Lovelace,42\n');
    assert.deepEqual([job.created_count, job.updated_count, job.failed_count], [0, 1, 0]);
    const got = (await api.get(`/subscribers/${created.body.data.id}`)).body.data;
    assert.equal(got.email, 'Ada@Example.com');
    assert.equal(got.first_name, 'Ada'); // not in the file: kept
    assert.equal(got.last_name, 'Lovelace');
    assert.deepEqual(got.custom_fields, { company: 'Analytical', score: 42 });
  });

  test('Bulk import › group_ids: every imported subscriber joins the groups', async () => {
    const { key } = await s.newAccount();
    const api = restClient(s.url, key);
    const g = await api.post('/groups', { name: 'Newsletter' });
    assert.equal(g.status, 201, JSON.stringify(g.body));
    const job = await importCsv(key, 'email\na@example.com\nb@example.com\n', {
      groupIds: JSON.stringify([g.body.data.id]),
    });
    assert.deepEqual(job.group_ids, [g.body.data.id]);
    const members = await api.get(`/subscribers?group_id=${g.body.data.id}`);
    assert.equal(members.body.data.pagination.total_count, 2);
  });

  test('Bulk import › 5,000 rows in several batches of 1000, invalid rows counted with row number and reason', async () => {
    const { key, accountId } = await s.newAccount();
    const api = restClient(s.url, key);
    await api.post('/fields', { key: 'score', type: 'number' });
    const lines = ['email,first_name,score,favourite_colour'];
    for (let i = 0; i < 5000; i++)
      lines.push(
        i === 10
          ? 'not-an-email,X,1,red'
          : i === 20
            ? `u${i}@example.com,Y,abc,red`
            : `u${i}@example.com,User ${i},${i},blue`,
      );
    lines.push('u1@example.com,Last Wins,7,green'); // a duplicate: the last row wins
    const job = await importCsv(key, lines.join('\n'));
    assert.equal(job.status, 'completed');
    assert.equal(job.total_rows, 5001);
    assert.equal(job.processed_rows, 5001);
    assert.deepEqual([job.created_count, job.updated_count, job.failed_count], [4998, 0, 2]);
    assert.deepEqual(job.errors, [
      { row: 12, email: 'not-an-email', reason: 'A valid email address is required' },
      { row: 22, email: 'u20@example.com', reason: 'custom_fields.score: Must be a number' },
    ]);
    assert.match(job.message, /Ignored unknown columns: favourite_colour/);
    assert.match(job.message, /1 duplicate rows merged/);
    const u1 = (await api.get('/subscribers?search=u1@example.com')).body.data.subscribers[0];
    assert.equal(u1.first_name, 'Last Wins');
    assert.equal((await api.get('/subscribers/stats')).body.data.total, 4998);
    // one subscriber.created per new subscriber, and one import.completed with the counts
    const events = await s.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', accountId)
      .execute();
    assert.equal(events.filter((e) => e.type === 'subscriber.created').length, 4998);
    const done = events.filter((e) => e.type === 'import.completed');
    assert.equal(done.length, 1);
    assert.equal(done[0]!.data.created_count, 4998);
  });

  test('Bulk import › BOM, ";" delimiter, CRLF and quoted fields', async () => {
    const { key } = await s.newAccount();
    const api = restClient(s.url, key);
    const csv =
      '\uFEFFEmail;First_Name;Last_Name\r\n"ada@example.com";"Ada; the first";Lovelace\r\ngrace@example.com;"Grace ""Amazing""";Hopper\r\n';
    const job = await importCsv(key, csv);
    assert.deepEqual([job.created_count, job.failed_count], [2, 0]);
    const found = (await api.get('/subscribers?search=ada@')).body.data.subscribers[0];
    assert.equal(found.first_name, 'Ada; the first');
    assert.equal((await api.get('/subscribers?search=grace@')).body.data.subscribers[0].first_name, 'Grace "Amazing"');
    const tab = await importCsv(key, 'email\tfirst_name\nlin@example.com\tLin\n');
    assert.equal(tab.created_count, 1);
  });

  test('Bulk import › 413 for a file over IMPORT_MAX_BYTES (never silently truncated)', async () => {
    const { key } = await s.newAccount();
    const lines = ['email'];
    for (let i = 0, size = 0; size < 2.5 * 1024 * 1024; i++)
      size += lines[lines.push(`someone.with.a.long.address.${i}@example.com`) - 1]!.length + 1;
    const res = await upload(key, lines.join('\n'));
    assert.equal(res.status, 413);
    assert.equal(res.body.success, false);
    assert.equal((await restClient(s.url, key).get('/subscribers/stats')).body.data.total, 0);
  });

  test('Import job › GET /imports/{job_id} of another account is 404 Import not found; /imports lists own jobs', async () => {
    const a = await s.newAccount();
    const b = await s.newAccount();
    const job = await importCsv(a.key, 'email\nada@example.com\n');
    const theirs = await restClient(s.url, b.key).get(`/imports/${job.job_id}`);
    assert.equal(theirs.status, 404);
    assert.deepEqual(theirs.body, { success: false, error: 'Import not found' });
    assert.equal((await restClient(s.url, b.key).get('/imports/not-a-uuid')).status, 404);
    const list = await restClient(s.url, a.key).get('/imports');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.imports.length, 1);
    assert.equal(list.body.data.imports[0].job_id, job.job_id);
    assert.equal((await restClient(s.url, b.key).get('/imports')).body.data.imports.length, 0);
    const readOnly = await s.newKey(a.accountId, ['subscribers:read']);
    const denied = await upload(readOnly.key, 'email\nx@example.com\n');
    assert.equal(denied.status, 403);
    assert.equal((await restClient(s.url, readOnly.key).get(`/imports/${job.job_id}`)).status, 200);
  });

  test('Bulk import › two concurrent imports into one account respect the plan limit', async () => {
    const { key } = await s.newAccount({ limit: 150 });
    const file = (prefix: string) =>
      ['email', ...Array.from({ length: 100 }, (_, i) => `${prefix}${i}@example.com`)].join('\n');
    const [one, two] = await Promise.all([upload(key, file('a')), upload(key, file('b'))]);
    assert.deepEqual([one.status, two.status].sort(), [200, 403]);
    const refused = one.status === 403 ? one : two;
    assert.equal(refused.body.data.limit, 150);
    assert.equal(refused.body.data.import_count, 100);
    const started = one.status === 200 ? one : two;
    await finished(key, started.body.data.job_id);
    assert.equal((await restClient(s.url, key).get('/subscribers/stats')).body.data.total, 100);
  });

  test('CLI › mailgrove import FILE --key --group uploads, follows the job and prints the result', async () => {
    const { key } = await s.newAccount();
    const group = (await restClient(s.url, key).post('/groups', { name: 'From CLI' })).body.data;
    const file = join(mkdtempSync(join(tmpdir(), 'mg-cli-')), 'people.csv');
    writeFileSync(file, 'email,first_name\ncli1@example.com,One\nnot-an-email,Two\ncli3@example.com,Three\n');
    const run = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'src/cli.ts',
      'import',
      file,
      '--key',
      key,
      '--group',
      group.id,
      '--url',
      s.url,
      '--poll-ms',
      '100',
    ]);
    assert.match(run.stdout, /Import completed: 2 created, 0 updated, 1 failed/);
    assert.match(run.stderr, /row 3 \(not-an-email\): A valid email address is required/);
    assert.equal(
      (await restClient(s.url, key).get(`/subscribers?group_id=${group.id}`)).body.data.pagination.total_count,
      2,
    );
    const refused = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'src/cli.ts',
      'import',
      file,
      '--key',
      'mailgrove_' + '0'.repeat(32),
      '--url',
      s.url,
    ]).catch((err) => err);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Import refused \(401\)/);
  });
});
