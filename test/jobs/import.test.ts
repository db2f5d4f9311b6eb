// The import worker: resumable batches, verification behind the Verifier
// interface (the http verifier against a real local service), suppressions, and the MCP rows path.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import * as accounts from '../../src/domain/accounts/accounts.ts';
import * as fields from '../../src/domain/subscribers/fields.ts';
import { stageCsv, toStaged } from '../../src/domain/imports/csv.ts';
import * as imports from '../../src/domain/imports/imports.ts';
import * as subscribers from '../../src/domain/subscribers/subscribers.ts';
import * as suppressions from '../../src/domain/subscribers/suppressions.ts';
import { mxVerifier } from '../../src/domain/imports/verify/mx.ts';
import { noneVerifier } from '../../src/domain/imports/verify/index.ts';
import type { Verifier } from '../../src/domain/imports/verify/verifier.ts';
import { fileScope } from '../support/scope.ts';
import { restClient, startServer } from '../support/server.ts';

// a verification service of our own: addresses at bad.example are undeliverable
const seen: string[][] = [];
const verifierService = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const { emails } = JSON.parse(body) as { emails: string[] };
    seen.push(emails);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        results: emails.map((email) => ({
          email,
          deliverable: !email.endsWith('@bad.example'),
          reason: 'mailbox does not exist',
        })),
      }),
    );
  });
});
await new Promise<void>((r) => verifierService.listen(0, '127.0.0.1', r));
after(() => verifierService.close());
const verifierUrl = `http://127.0.0.1:${(verifierService.address() as { port: number }).port}/verify`;

const s = await startServer(fileScope, {
  WORKER_POLL_MS: 200,
  VERIFIER: 'http',
  VERIFIER_URL: verifierUrl,
  REST_RATE_LIMIT: 100_000,
});
const noQueue = { send: async () => undefined };

async function finished(accountId: string, jobId: string) {
  for (let i = 0; i < 600; i++) {
    const job = await imports.get(s.db, accountId, jobId);
    if (job.status !== 'processing') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not finish');
}

function csv(n: number, at = (i: number) => `user${i}@example.com`) {
  return Readable.from([
    Buffer.from(['email,first_name', ...Array.from({ length: n }, (_, i) => `${at(i)},User ${i}`)].join('\n')),
  ]);
}

describe('Import worker', () => {
  test('Import › a batch that fails part-way is redone on the next run: counts add up, no duplicates', async () => {
    const { accountId } = await s.newAccount();
    const upload = await imports.stageFile(s.db, accountId, csv(3500), 'x.csv');
    const job = await imports.start(s.db, noQueue, upload, []);
    await accounts.update(s.db, accountId, { verify_emails: true });
    let calls = 0;
    const flaky: Verifier = {
      kind: 'http',
      check: async () => {
        if (++calls === 3) throw new Error('verifier down');
        return new Map();
      },
    };
    const deps = { verifier: flaky, secret: s.config.secret };
    await assert.rejects(async () => {
      while (await imports.runBatch(s.db, deps, job.job_id));
    }, /verifier down/);
    const cut = await imports.get(s.db, accountId, job.job_id);
    assert.deepEqual([cut.status, cut.processed_rows, cut.created_count], ['processing', 2000, 2000]);
    while (await imports.runBatch(s.db, deps, job.job_id));
    const done = await imports.get(s.db, accountId, job.job_id);
    assert.deepEqual(
      [done.status, done.processed_rows, done.created_count, done.updated_count, done.failed_count],
      ['completed', 3500, 3500, 0, 0],
    );
    const created = await s.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('type', '=', 'subscriber.created')
      .executeTakeFirstOrThrow();
    assert.equal(Number(created.n), 3500);
    assert.equal(
      await s.db.selectFrom('import_chunks').select('first_row').where('import_id', '=', job.job_id).executeTakeFirst(),
      undefined,
      'staged rows are dropped at the end',
    );
    // the search (trigram GIN) indexes took in the import at its end: nothing is left in their pending lists
    const { rows } = await sql<{
      pages: number;
    }>`select coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)::int as pages from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam where i.indrelid = 'subscribers'::regclass and a.amname = 'gin'`.execute(
      s.db,
    );
    assert.equal(rows[0]!.pages, 0);
  });

  test('Import › staging returns only after its last chunk is written, also when the file ends on a full chunk', async () => {
    // a database whose chunk inserts take a while: the write of the last chunk must be awaited, not raced
    let written = 0;
    const slow = new Kysely<any>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createQueryCompiler: () => new PostgresQueryCompiler(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createDriver: () => ({
          init: async () => {},
          acquireConnection: async () => ({
            executeQuery: async (q: { sql: string }) => {
              if (q.sql.includes('insert into import_chunks')) {
                await new Promise((r) => setTimeout(r, 30));
                written++;
              }
              return { rows: [] };
            },
            streamQuery: () => {
              throw new Error('no streaming');
            },
          }),
          beginTransaction: async () => {},
          commitTransaction: async () => {},
          rollbackTransaction: async () => {},
          releaseConnection: async () => {},
          destroy: async () => {},
        }),
      },
    });
    for (const rows of [3000, 2500]) {
      written = 0;
      const staged = await stageCsv(
        slow,
        '00000000-0000-4000-8000-000000000000',
        '00000000-0000-4000-8000-000000000001',
        csv(rows),
      );
      assert.equal(staged.total_rows, rows);
      assert.equal(written, Math.ceil(rows / 1000), `${rows} rows: every chunk written when staging returns`);
    }
  });

  test('Import › a file of whole chunks is fully staged when the upload returns: the start pass sees its last chunk', async () => {
    const { accountId } = await s.newAccount();
    // 3000 rows = 3 full chunks; the last row repeats the first address (any case): the first row is the duplicate
    const upload = await imports.stageFile(
      s.db,
      accountId,
      csv(3000, (i) => (i === 2999 ? 'USER0@example.com' : `user${i}@example.com`)),
      'c.csv',
    );
    const staged = await sql<{
      chunks: number;
      rows: number;
    }>`select count(*)::int as chunks, coalesce(sum(jsonb_array_length(rows)), 0)::int as rows
      from import_chunks where import_id = ${upload.importId}`.execute(s.db);
    assert.deepEqual(staged.rows[0], { chunks: 3, rows: 3000 });
    await imports.start(s.db, noQueue, upload, []);
    const row = await s.db
      .selectFrom('imports')
      .select(['duplicate_count', 'new_count'])
      .where('id', '=', upload.importId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { duplicate_count: 1, new_count: 2999 });
  });

  test('Email verification › http verifier: undeliverable addresses fail with the reason when the account verifies', async () => {
    const { accountId, key } = await s.newAccount();
    await accounts.update(s.db, accountId, { verify_emails: true });
    const upload = await imports.stageFile(
      s.db,
      accountId,
      csv(4, (i) => (i % 2 ? `u${i}@bad.example` : `u${i}@good.example`)),
      'v.csv',
    );
    const job = await finished(accountId, (await imports.start(s.db, s.running.queue, upload, [])).job_id);
    assert.deepEqual([job.created_count, job.failed_count], [2, 2]);
    assert.deepEqual(job.errors, [
      { row: 3, email: 'u1@bad.example', reason: 'Undeliverable: mailbox does not exist' },
      { row: 5, email: 'u3@bad.example', reason: 'Undeliverable: mailbox does not exist' },
    ]);
    assert.ok(seen.some((batch) => batch.includes('u0@good.example')));
    assert.equal((await restClient(s.url, key).get('/subscribers/stats')).body.data.total, 2);
  });

  test('Email verification › off unless the account has verify_emails', async () => {
    const { accountId } = await s.newAccount();
    const before = seen.length;
    const upload = await imports.stageFile(
      s.db,
      accountId,
      csv(2, (i) => `x${i}@bad.example`),
      'v.csv',
    );
    const job = await finished(accountId, (await imports.start(s.db, s.running.queue, upload, [])).job_id);
    assert.deepEqual([job.created_count, job.failed_count], [2, 0]);
    assert.equal(seen.length, before);
  });

  test('Email verification › mx verifier: a domain without MX fails, a lookup that times out passes, lookups are cached', async () => {
    const asked: string[] = [];
    const resolveMx = async (domain: string) => {
      asked.push(domain);
      if (domain === 'nomx.example') throw Object.assign(new Error('no data'), { code: 'ENODATA' });
      if (domain === 'slow.example') return new Promise<never>(() => {});
      if (domain === 'nullmx.example') return [{ exchange: '', priority: 0 }];
      return [{ exchange: 'mx.ok.example', priority: 10 }];
    };
    const v = mxVerifier({ resolveMx, timeoutMs: 50 });
    const out = await v.check(['a@ok.example', 'b@NOMX.example', 'c@slow.example', 'd@nullmx.example', 'e@ok.example']);
    assert.deepEqual([...out.keys()].sort(), ['b@nomx.example', 'd@nullmx.example']);
    assert.match(out.get('b@nomx.example')!, /no MX record/);
    await v.check(['f@ok.example', 'g@nomx.example']);
    assert.equal(asked.filter((d) => d === 'ok.example').length, 1);
    assert.equal(asked.filter((d) => d === 'nomx.example').length, 1);
  });

  test('forget_subscriber › a suppressed (forgotten) address is skipped by imports, and its address is not kept in the errors', async () => {
    const { accountId } = await s.newAccount();
    await suppressions.suppress(s.db, s.config.secret, accountId, 'Gone@Example.com', 'forgotten');
    const upload = await imports.stageFile(
      s.db,
      accountId,
      csv(3, (i) => (i === 1 ? 'gone@example.com' : `kept${i}@example.com`)),
      'f.csv',
    );
    const job = await imports.start(s.db, noQueue, upload, []);
    while (await imports.runBatch(s.db, { verifier: noneVerifier, secret: s.config.secret }, job.job_id));
    const done = await imports.get(s.db, accountId, job.job_id);
    assert.deepEqual([done.created_count, done.failed_count], [2, 1]);
    assert.equal(done.errors[0]!.row, 3);
    assert.equal(done.errors[0]!.email, null);
    assert.match(done.errors[0]!.reason, /forgotten/);
  });

  test('import_subscribers_to_group › startFromRows creates the same job from inline rows (numbered from 1), groups and plan limit apply', async () => {
    const { accountId, key } = await s.newAccount({ limit: 2 });
    const api = restClient(s.url, key);
    const group = (await api.post('/groups', { name: 'VIP' })).body.data;
    const rows = [
      { email: 'a@example.com', first_name: 'A' },
      { email: 'bad' },
      { email: 'B@example.com', custom_fields: { nope: 1 } },
      { email: 'b@example.com' },
    ];
    const job = await finished(
      accountId,
      (await imports.startFromRows(s.db, s.running.queue, accountId, { rows, groupIds: [group.id], source: 'mcp' }))
        .job_id,
    );
    assert.deepEqual([job.status, job.created_count, job.failed_count], ['completed', 2, 2]);
    assert.deepEqual(
      job.errors.map((e) => [e.row, e.reason]),
      [
        [2, 'A valid email address is required'],
        [3, 'custom_fields.nope: Unknown custom field: nope'],
      ],
    );
    assert.equal((await api.get(`/subscribers?group_id=${group.id}`)).body.data.pagination.total_count, 2);
    await assert.rejects(
      imports.startFromRows(s.db, s.running.queue, accountId, {
        rows: [{ email: 'c@example.com' }],
        groupIds: [],
        source: 'mcp',
      }),
      (err: any) => {
        assert.equal(err.message, 'Import would exceed the plan limit');
        assert.deepEqual(err.data, { current_count: 2, import_count: 1, limit: 2 });
        return true;
      },
    );
    await assert.rejects(
      imports.startFromRows(s.db, s.running.queue, accountId, {
        rows: [{ email: 'c@example.com' }],
        groupIds: ['00000000-0000-4000-8000-000000000000'],
        source: 'mcp',
      }),
      /Group not found/,
    );
    await assert.rejects(imports.get(s.db, (await s.newAccount()).accountId, job.job_id), /Import not found/);
  });

  test("Import › member_of of new and existing subscribers holds the import's groups once, as their memberships do", async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const [a, b, c] = await Promise.all(
      ['A', 'B', 'C'].map(async (name) => (await api.post('/groups', { name })).body.data.id),
    );
    await subscribers.create(s.db, accountId, { email: 'old@example.com', group_ids: [a, c] });
    const job = await finished(
      accountId,
      (
        await imports.startFromRows(s.db, s.running.queue, accountId, {
          rows: [{ email: 'OLD@example.com' }, { email: 'new@example.com' }],
          groupIds: [a, b],
          source: 'mcp',
        })
      ).job_id,
    );
    assert.deepEqual([job.created_count, job.updated_count], [1, 1]);
    const { rows } = await sql<{ email: string; member_of: string[]; memberships: string[] }>`
      select s.email, array(select unnest(s.member_of) order by 1)::text[] as member_of,
        array(select sg.group_id from subscriber_groups sg where sg.subscriber_id = s.id order by 1)::text[] as memberships
      from subscribers s where s.account_id = ${accountId}::uuid order by s.email`.execute(s.db);
    assert.deepEqual(
      rows.map((r) => [r.email, r.member_of]),
      [
        ['new@example.com', [a, b].sort()],
        ['old@example.com', [a, b, c].sort()],
      ],
    );
    for (const r of rows) assert.deepEqual(r.member_of, r.memberships, r.email);
  });
});

// toStaged checks the common case directly (no zod parse per row); acceptance and messages must stay those of
// creating one subscriber (subscribers.NewSubscriber) and fields.coerceWith — the reference below is that path
describe('Import › row validation', () => {
  function reference(rowNo: number, input: Record<string, unknown>, defs: Map<string, fields.FieldType>) {
    const text = (v: unknown) =>
      typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : v == null ? '' : String(v);
    const email = text(input.email);
    if (!email) return { row_no: rowNo, error: 'Email is missing' };
    const candidate: Record<string, unknown> = { email };
    for (const col of ['first_name', 'last_name', 'phone'])
      if (text(input[col]) !== '') candidate[col] = text(input[col]);
    const parsed = subscribers.NewSubscriber.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return {
        row_no: rowNo,
        email,
        error: issue.path[0] === 'email' ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
      };
    }
    const row: Record<string, unknown> = { row_no: rowNo, email: parsed.data.email };
    for (const col of ['first_name', 'last_name', 'phone'] as const)
      if (parsed.data[col] != null) row[col] = parsed.data[col];
    const given = Object.entries((input.custom_fields as Record<string, unknown>) ?? {}).filter(
      ([, v]) => v !== undefined && v !== null && text(v) !== '',
    );
    if (given.length > 0) {
      try {
        const kept = Object.entries(fields.coerceWith(defs, Object.fromEntries(given))).filter(([, v]) => v !== null);
        if (kept.length > 0) row.custom_fields = Object.fromEntries(kept);
      } catch (err) {
        return { ...row, error: (err as Error).message };
      }
    }
    return row;
  }

  test('Import › the fast row check accepts, rejects and words reasons exactly as creating a subscriber does', () => {
    const defs = new Map<string, fields.FieldType>([
      ['score', 'number'],
      ['since', 'date'],
      ['vip', 'boolean'],
      ['note', 'text'],
    ]);
    const emails = [
      'ada@example.com',
      ' Ada.Lovelace+x@Example.COM ',
      'bob@@example.com',
      'no-at.example.com',
      'a@b',
      'a@b.c',
      'x'.repeat(250) + '@e.co',
      '.dot@example.com',
      'a..b@example.com',
      'ünï@example.com',
      'a@exämple.com',
      "o'brien@example.ie",
      'tab\t@example.com',
      '',
      '   ',
      'a@example.com\u0000',
      'trail.@example.com',
      'a@-example.com',
      'a@example.c0m',
    ];
    const names = [
      undefined,
      '',
      '  Ada  ',
      'x'.repeat(255),
      'x'.repeat(256),
      'nul\u0000',
      '\ud800alone',
      '😀 emoji',
      42,
    ];
    const phones = [
      undefined,
      '',
      '+44 20 7946 0958',
      '(555) 123-4567',
      'call me',
      '+' + '1'.repeat(32),
      '1'.repeat(32),
    ];
    const customs = [
      undefined,
      {},
      { score: '12.5' },
      { score: 'abc' },
      { score: '' },
      { since: '2024-02-29' },
      { since: '2023-02-29' },
      { vip: 'Yes' },
      { vip: 'maybe' },
      { note: '  spaced  ' },
      { note: 'nul\u0000' },
      { nope: 'x' },
      { score: 'x', nope: 'y' },
      { nope: 'y', score: 'x' },
      { score: 1, vip: 'no', since: '2020-01-01T10:00' },
    ];
    let n = 0;
    for (const email of emails)
      for (const first_name of names)
        for (const phone of phones)
          for (const custom_fields of customs) {
            const input = {
              email,
              first_name,
              last_name: typeof first_name === 'string' ? first_name.slice(0, 3) : undefined,
              phone,
              custom_fields,
            };
            assert.deepEqual(toStaged(++n, input, defs), reference(n, input, defs), JSON.stringify(input));
          }
    assert.equal(n, emails.length * names.length * phones.length * customs.length);
  });
});

describe('forget_subscriber › imports eraser', () => {
  test('forget_subscriber › the address leaves staged rows of running imports and kept error lists', async () => {
    const { accountId } = await s.newAccount();
    const { erase } = await import('../../src/domain/imports/eraser.ts');
    await s.db
      .insertInto('fields')
      .values({ account_id: accountId, key: 'score', name: 'score', type: 'number' })
      .execute();
    const bad = await imports.stageFile(
      s.db,
      accountId,
      Readable.from([Buffer.from('email,score\nada@example.com,x\n')]),
      'e.csv',
    );
    const done = await finished(accountId, (await imports.start(s.db, s.running.queue, bad, [])).job_id);
    assert.deepEqual(done.errors, [
      { row: 2, email: 'ada@example.com', reason: 'custom_fields.score: Must be a number' },
    ]);
    const running = await imports.stageFile(
      s.db,
      accountId,
      csv(2, (i) => (i ? 'ADA@example.com' : 'other@example.com')),
      'r.csv',
    );
    const job = await imports.start(s.db, noQueue, running, []);
    await s.db
      .transaction()
      .execute((trx) =>
        erase(trx, accountId, { subscriberId: '00000000-0000-4000-8000-000000000000', email: 'Ada@Example.com' }),
      );
    const staged = (
      await s.db
        .selectFrom('import_chunks')
        .select('rows')
        .where('import_id', '=', job.job_id)
        .orderBy('first_row')
        .execute()
    ).flatMap((c) => c.rows);
    assert.deepEqual(staged, [
      { row_no: 2, email: 'other@example.com', first_name: 'User 0' },
      { row_no: 3, error: 'Address was forgotten (suppressed)' },
    ]);
    while (await imports.runBatch(s.db, { verifier: noneVerifier, secret: s.config.secret }, job.job_id));
    const ended = await imports.get(s.db, accountId, job.job_id);
    assert.deepEqual(
      [ended.created_count, ended.failed_count, ended.errors],
      [1, 1, [{ row: 3, email: null, reason: 'Address was forgotten (suppressed)' }]],
    );
    const kept = await imports.get(s.db, accountId, done.job_id);
    assert.deepEqual(kept.errors, [{ row: 2, email: null, reason: 'custom_fields.score: Must be a number' }]);
  });
});

// migration 20261121_1100_import_speed: events lost their foreign keys (import speed); triggers keep the cascade
describe('Delete subscriber › removes the subscriber with its events (engagement history)', () => {
  test('Delete subscriber › its events go with it; deleting an account removes all of its subscribers and events', async () => {
    const { accountId } = await s.newAccount();
    const other = await s.newAccount();
    const rows = [{ email: 'gone@example.com' }, { email: 'kept@example.com' }];
    await finished(
      accountId,
      (await imports.startFromRows(s.db, s.running.queue, accountId, { rows, groupIds: [], source: 'mcp' })).job_id,
    );
    const eventsOf = (id: string) => s.db.selectFrom('events').select('type').where('subscriber_id', '=', id).execute();
    const byEmail = async (email: string) =>
      (
        await s.db
          .selectFrom('subscribers')
          .select('id')
          .where('account_id', '=', accountId)
          .where('email', '=', email)
          .executeTakeFirstOrThrow()
      ).id;
    const [gone, kept] = [await byEmail('gone@example.com'), await byEmail('kept@example.com')];
    assert.deepEqual(await eventsOf(gone), [{ type: 'subscriber.created' }]);
    await subscribers.remove(s.db, accountId, gone);
    assert.deepEqual(await eventsOf(gone), [], 'the deleted subscriber’s events are gone');
    assert.deepEqual(await eventsOf(kept), [{ type: 'subscriber.created' }], 'others keep theirs');
    await s.db
      .insertInto('events')
      .values({ account_id: other.accountId, type: 'subscriber.deleted', data: '{}' })
      .execute();
    await s.db.deleteFrom('accounts').where('id', '=', accountId).execute();
    assert.equal(
      (await s.db.selectFrom('events').select('id').where('account_id', '=', accountId).execute()).length,
      0,
      'the account’s events are gone',
    );
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute()).length,
      0,
      'the account’s subscribers are gone',
    );
    assert.equal(
      (await s.db.selectFrom('events').select('id').where('account_id', '=', other.accountId).execute()).length,
      1,
      'another account keeps its events',
    );
  });
});
