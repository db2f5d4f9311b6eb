// Two instances of one deployment: two real `mailgrove serve` processes on one PostgreSQL database, each
// serving HTTP and running every worker. Nothing may depend on which instance a request or a job lands
// on, and nothing may be left behind by an instance that dies: the MCP budget of a key is one, a key
// revoked through one is refused by the other at once, a campaign reaches each recipient once with both
// sending, an import whose instance is killed finishes on the other with every row once, and a send
// whose instance is killed is finished by the other with nothing sent twice. PostgreSQL only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { backend } from '../support/db.ts';
import { childServer, type ChildServer } from '../support/childServer.ts';
import { mcpClient } from '../http/mcp/client.ts';
import { client, restClient } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';

const SEND_CONCURRENCY = 5;
const SEND_IN_FLIGHT = 2 * SEND_CONCURRENCY;
const ENV = {
  ALLOW_INSECURE_PUBLIC_URL: 'true',
  WORKER_POLL_MS: '200',
  // an instance silent for 4 s is dead here (20 s by default): the takeover is what is tested, not the wait
  INSTANCE_HEARTBEAT_MS: '1000',
  INSTANCE_TIMEOUT_MS: '4000',
  SEND_LEASE_MS: '1500',
  SEND_BATCH_SIZE: '50',
  SEND_CONCURRENCY: String(SEND_CONCURRENCY),
  SEND_IN_FLIGHT: String(SEND_IN_FLIGHT),
  REST_RATE_LIMIT: '100000',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(
  'two instances on one PostgreSQL',
  { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' },
  () => {
    let a: ChildServer;
    let b: ChildServer;
    let sink: Sink;
    let db: pg.Pool;
    let accountId: string;
    let key: string;

    const admin = () => client(`${b.url}/admin/v1`, b.adminToken);
    const newKey = async (name: string) => {
      const r = await client(`${a.url}/admin/v1`, a.adminToken).post(`/accounts/${accountId}/api-keys`, {
        name,
        scopes: ['*'],
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data as { id: string; key: string };
    };
    /** `n` subscribers in a new group, written in one statement; the group's id */
    const audience = async (prefix: string, n: number): Promise<string> => {
      const g = await restClient(a.url, key).post('/groups', { name: prefix });
      assert.equal(g.status, 201, JSON.stringify(g.body));
      await db.query(
        `with s as (
         insert into subscribers (account_id, email, custom_fields, created_at, updated_at)
         select $1::uuid, $2 || i || '@two.test', '{}', now(), now() from generate_series(1, $3::int) i
         returning id)
       insert into subscriber_groups (account_id, subscriber_id, group_id) select $1::uuid, id, $4::uuid from s`,
        [accountId, prefix, n, g.body.data.id],
      );
      return g.body.data.id;
    };
    const sendCampaign = async (name: string, groupId: string): Promise<string> => {
      const api = restClient(a.url, key);
      const c = await api.post('/campaigns', {
        name,
        subject: `${name} {{ subscriber.email }}`,
        content_html: '<p>Hi</p>',
        group_ids: [groupId],
      });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      const scheduled = await api.post(`/campaigns/${c.body.data.id}/schedule`, { delivery: 'instant' });
      assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
      return c.body.data.id;
    };
    /** polls through `via` until the campaign is sent; its stats */
    const sent = async (via: ChildServer, id: string, timeoutMs = 60_000) => {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const c = await restClient(via.url, key)
          .get(`/campaigns/${id}`)
          .catch(() => undefined);
        if (c?.body.data?.status === 'sent') return c.body.data.stats;
        assert.ok(
          Date.now() < end,
          `campaign ${id} not sent: ${JSON.stringify(c?.body)}\n${via.output().slice(-3000)}`,
        );
        await sleep(200);
      }
    };
    const deliveredTo = (prefix: string) => [...sink.counts].filter(([email]) => email.startsWith(prefix));

    before(async () => {
      sink = await startSink({ parse: false });
      a = await childServer({ ...ENV, SMTP_URL: sink.url });
      b = await childServer({ ...ENV, SMTP_URL: sink.url, DATABASE_URL: a.databaseUrl! });
      await a.start(); // migrations first, then the second instance on the migrated database
      await b.start();
      db = new pg.Pool({ connectionString: a.databaseUrl, max: 2 });
      const account = await admin().post('/accounts', { name: 'Two instances', subscriber_limit: 1_000_000 });
      assert.equal(account.status, 201, JSON.stringify(account.body));
      accountId = account.body.data.id;
      key = (await newKey('main')).key;
    });
    after(async () => {
      await db?.end();
      await b?.destroy();
      await a?.destroy();
      await sink?.close();
    });

    test('120 MCP requests a minute per key across both instances; the 121st is 429 on either', async () => {
      const { key: k } = await newKey('mcp');
      const [ma, mb] = [mcpClient(a.url, k), mcpClient(b.url, k)];
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? mb : ma).rpc('ping')));
      assert.deepEqual(
        answers.map((r) => r.status),
        Array(120).fill(200),
      );
      const [onA, onB] = [await ma.rpc('ping'), await mb.rpc('ping')];
      assert.equal(onA.status, 429, JSON.stringify(onA.body));
      assert.equal(onB.status, 429, JSON.stringify(onB.body));
      assert.ok(onB.body.retry_after >= 1);
    });

    test('a key revoked through one instance is refused by the other on its next request', async () => {
      const revoked = await newKey('revoked');
      const onB = restClient(b.url, revoked.key);
      for (let i = 0; i < 3; i++) assert.equal((await onB.get('/test-auth')).status, 200, 'cached on B');
      const r = await client(`${a.url}/admin/v1`, a.adminToken).delete(`/api-keys/${revoked.id}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const next = await onB.get('/test-auth');
      assert.equal(next.status, 401, JSON.stringify(next.body));
      assert.equal(next.body.message, 'API key has been revoked');
      assert.equal((await mcpClient(b.url, revoked.key).rpc('ping')).status, 401);
    });

    test('a campaign sent by both instances reaches each recipient exactly once', async () => {
      const N = 600;
      const id = await sendCampaign('both', await audience('both', N));
      const stats = await sent(b, id);
      assert.deepEqual([stats.recipients, stats.sent], [N, N]);
      const got = deliveredTo('both');
      assert.equal(got.length, N, 'every recipient got it');
      assert.deepEqual(
        got.filter(([, n]) => n !== 1),
        [],
        'nobody got it twice',
      );
    });

    test('an import whose instance is killed mid-way finishes on the other, every row exactly once', async () => {
      const ROWS = 20_000;
      const lines = ['email,first_name'];
      for (let i = 0; i < ROWS; i++) lines.push(`imp${i}@two.test,Row ${i}`);
      const form = new FormData();
      form.append('file', new Blob([lines.join('\n')]), 'rows.csv');
      const res = await fetch(`${a.url}/api/v1/external/subscribers/import-async`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      const started = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(started));
      const jobId = started.data.job_id;

      // the instance that runs it holds the job's lease: kill that one as soon as rows are coming in
      let victim: ChildServer | undefined;
      let atKill = 0;
      for (const end = Date.now() + 30_000; !victim;) {
        assert.ok(Date.now() < end, 'the import did not start');
        const { rows } = await db.query(
          `select w.pid, i.processed_rows from job_leases l
           join worker_instances w on w.id = l.instance_id
           join imports i on i.id = $1::uuid
          where l.queue = 'import'`,
          [jobId],
        );
        if (rows[0]?.processed_rows > 0) {
          victim = [a, b].find((s) => s.pid === rows[0].pid);
          assert.ok(victim, `the lease names pid ${rows[0].pid}, one of the two instances`);
          await victim.kill9();
          atKill = (await db.query(`select processed_rows from imports where id = $1`, [jobId])).rows[0].processed_rows;
        } else await sleep(5);
      }
      const killedAt = Date.now();
      assert.ok(atKill < ROWS, `killed after ${atKill} of ${ROWS} rows: mid-import`);
      const survivor = victim === a ? b : a;

      let resumedAt = 0;
      let job: any;
      for (const end = killedAt + 60_000; ;) {
        job = (await restClient(survivor.url, key).get(`/imports/${jobId}`)).body.data;
        if (!resumedAt && job.processed_rows > atKill) resumedAt = Date.now();
        if (job.status !== 'processing') break;
        assert.ok(Date.now() < end, `not finished a minute after the kill: ${JSON.stringify(job)}`);
        await sleep(100);
      }
      const doneAt = Date.now();
      console.log(
        `import killed at ${atKill}/${ROWS} rows; resumed by the survivor after ${((resumedAt - killedAt) / 1000).toFixed(1)} s, completed after ${((doneAt - killedAt) / 1000).toFixed(1)} s`,
      );
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.deepEqual(
        [job.processed_rows, job.created_count, job.updated_count, job.failed_count],
        [ROWS, ROWS, 0, 0],
      );
      const { rows } = await db.query(
        `select (select count(*) from subscribers where email like 'imp%@two.test')::int as subscribers,
              (select count(*) from events e join subscribers s on s.id = e.subscriber_id
                where e.type = 'subscriber.created' and s.email like 'imp%@two.test')::int as created,
              (select count(*) from events where type = 'import.completed' and data->>'import_id' = $1)::int as completed`,
        [jobId],
      );
      assert.deepEqual(rows[0], { subscribers: ROWS, created: ROWS, completed: 1 }, 'every row once, every event once');

      await victim!.start(); // back for the next story
    });

    test('an instance killed mid-send: the other finishes the campaign and nobody gets it twice', async () => {
      const N = 1000;
      sink.setDelay(10);
      const id = await sendCampaign('kill', await audience('kill', N));
      await sink.waitFor(() => deliveredTo('kill').length >= 200, 60_000);
      await a.kill9();
      const atKill = deliveredTo('kill').length;
      assert.ok(atKill < N, `killed mid-send (${atKill} delivered)`);
      sink.setDelay(0);

      const stats = await sent(b, id);
      const got = deliveredTo('kill');
      assert.deepEqual(
        got.filter(([, n]) => n > 1),
        [],
        'nobody got the campaign twice',
      );
      assert.equal(stats.recipients, N);
      assert.equal(
        stats.sent + stats.interrupted,
        N,
        `every row sent, or interrupted when it was in flight: ${JSON.stringify(stats)}`,
      );
      assert.ok(stats.interrupted <= SEND_IN_FLIGHT, `only what was in flight is interrupted: ${stats.interrupted}`);
      assert.ok(got.length >= stats.sent && got.length <= N);
    });
  },
);
