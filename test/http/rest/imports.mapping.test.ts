// An import with the person's choices, through the spec's upload and the real worker: a mapping (any
// column to any field, a custom field, time_zone, skipped), existing subscribers updated or left alone, a
// consent note on each imported subscriber, and a bad value dropped with a per-row warning or its row refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { importFinished, uploadCsv } from '../../support/imports.ts';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { WORKER_POLL_MS: 200 });

const upload = (key: string, csv: string, fields: Record<string, string>) => uploadCsv(s.url, key, csv, { fields });
const finished = (key: string, jobId: string) => importFinished(s.url, key, jobId);

const CSV =
  'E-Mail Adresse,Vorname,Kundennummer,Zone,Notes\n' +
  'ada@example.com,Ada,17,Europe/London,first\n' +
  'bob@example.com,Bob,not-a-number,Mars/Base,second\n' +
  'carol@example.com,Carol,31,,third\n';

test('mapping, drop_value, time_zone, consent note; existing subscribers left alone with existing: skip', async () => {
  const { key } = await s.newAccount();
  const api = restClient(s.url, key);
  assert.equal((await api.post('/fields', { key: 'customer_no', name: 'Customer no', type: 'number' })).status, 201);
  await api.post('/subscribers', { email: 'carol@example.com', first_name: 'Old Carol' });
  const mapping = JSON.stringify({
    'E-Mail Adresse': 'email',
    vorname: 'first_name',
    Kundennummer: 'custom_fields.customer_no',
    Zone: 'time_zone',
    Notes: 'skip',
  });
  const res = await upload(key, CSV, {
    mapping,
    existing: 'skip',
    on_bad_value: 'drop_value',
    consent_note: 'Signed up at the spring fair 2026 (paper list)',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await finished(key, res.body.data.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.deepEqual([job.created_count, job.updated_count, job.failed_count, job.skipped_count], [2, 0, 0, 1]);
  assert.equal(job.warning_count, 1);
  assert.equal(job.warnings[0].row, 3);
  assert.match(job.warnings[0].reason, /customer_no: .*left out/);
  assert.match(job.warnings[0].reason, /time_zone: "Mars\/Base" is not an IANA time zone name/);
  assert.deepEqual(job.options, {
    existing: 'skip',
    on_bad_value: 'drop_value',
    consent_note: 'Signed up at the spring fair 2026 (paper list)',
    mapping: JSON.parse(mapping),
  });
  assert.doesNotMatch(job.message, /Ignored unknown columns/); // Notes was skipped on purpose

  const rows = await s.db
    .selectFrom('subscribers')
    .select(['email', 'first_name', 'custom_fields', 'time_zone', 'id'])
    .where('email', 'in', ['ada@example.com', 'bob@example.com', 'carol@example.com'])
    .orderBy('email')
    .execute();
  assert.deepEqual(
    rows.map((r) => [r.email, r.first_name, r.custom_fields, r.time_zone]),
    [
      ['ada@example.com', 'Ada', { customer_no: 17 }, 'Europe/London'],
      ['bob@example.com', 'Bob', {}, null],
      ['carol@example.com', 'Old Carol', {}, null], // left alone
    ],
  );
  const ada = (await api.get(`/subscribers/${rows[0]!.id}`)).body.data;
  assert.deepEqual(
    ada.notes.map((n: any) => n.content),
    ['Signed up at the spring fair 2026 (paper list)'],
  );
  assert.equal((await api.get(`/subscribers/${rows[2]!.id}`)).body.data.notes.length, 0);
});

test('refuse_row (the default) fails the row with the bad value; existing: update updates', async () => {
  const { key } = await s.newAccount();
  const api = restClient(s.url, key);
  await api.post('/fields', { key: 'customer_no', name: 'Customer no', type: 'number' });
  await api.post('/subscribers', { email: 'carol@example.com', first_name: 'Old Carol' });
  const res = await upload(key, CSV, {
    mapping: JSON.stringify({
      'E-Mail Adresse': 'email',
      Vorname: 'first_name',
      Kundennummer: 'custom_fields.customer_no',
    }),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await finished(key, res.body.data.job_id);
  assert.deepEqual([job.created_count, job.updated_count, job.failed_count, job.skipped_count], [1, 1, 1, 0]);
  assert.equal(job.errors[0].row, 3);
  assert.match(job.message, /Ignored unknown columns: Zone, Notes/);
});

test('options that do not fit are a 400 naming them; nothing is imported', async () => {
  const { key } = await s.newAccount();
  for (const [options, field] of [
    [{ mapping: '{not json' }, 'mapping'],
    [{ mapping: JSON.stringify({ a: 'email', b: 'email' }) }, 'mapping'],
    [{ mapping: JSON.stringify({ a: 'password' }) }, 'mapping.a'],
    [{ mapping: JSON.stringify({ 'E-Mail Adresse': 'email', Vorname: 'custom_fields.nope' }) }, 'mapping'],
    [{ existing: 'overwrite' }, 'existing'],
    [{ on_bad_value: 'ignore' }, 'on_bad_value'],
    [{ consent_note: 'x'.repeat(1001) }, 'consent_note'],
  ] as const) {
    const res = await upload(key, CSV, options);
    assert.equal(res.status, 400, `${JSON.stringify(options)} → ${JSON.stringify(res.body)}`);
    assert.ok(Object.keys(res.body.data).includes(field), JSON.stringify(res.body));
  }
  const after = new FormData();
  after.append('file', new Blob([CSV], { type: 'text/csv' }), 'list.csv');
  after.append('existing', 'skip');
  const late = await fetch(`${s.url}/api/v1/external/subscribers/import-async`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: after,
  });
  assert.equal(late.status, 400);
  assert.equal((await restClient(s.url, key).get('/imports')).body.data.imports.length, 0);
});
