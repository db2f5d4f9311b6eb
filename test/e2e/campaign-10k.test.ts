// a 10,000-recipient campaign delivered over real SMTP, the sink counting exactly
// 10,000 distinct recipients, each once; the ledger, email.sent events and campaign.sent agree.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { ledgerCounts, seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { fileScope } from '../support/scope.ts';
import { restClient, startServer } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';

const N = 10_000;
const sink = await startSink({ parse: false });
after(() => sink.close());
const s = await startServer(fileScope, { SMTP_URL: sink.url, WORKER_POLL_MS: 100 });

test('Sending › 10,000 recipients: the sink counts exactly 10,000 distinct recipients, each once', async () => {
  const { accountId, key } = await s.newAccount();
  const api = restClient(s.url, key);
  const { groupId } = await seedAudience(s.db, accountId, N, { domain: 'tenk.test' });
  const id = (
    await api.post('/campaigns', {
      name: 'Ten thousand',
      subject: 'Hi {{ subscriber.first_name }}',
      content_html: '<p>Hello {{ subscriber.first_name }} <a href="https://example.org/x">x</a></p>',
      group_ids: [groupId],
    })
  ).body.data.id;
  const started = Date.now();
  const res = await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.stats.recipients, N);
  // the freeze left the planner statistics that know the ledger's new rows (the send plans by them)
  const { rows } = await sql<{ n: number }>`
    select reltuples::int as n from pg_class where oid = 'campaign_recipients'::regclass`.execute(s.db);
  assert.ok(rows[0]!.n >= N, `reltuples ${rows[0]!.n}`);
  const done = await waitForCampaign(api, id, (c) => c.status === 'sent', 160_000);
  const seconds = (Date.now() - started) / 1000;
  console.log(`10,000 recipients sent in ${seconds.toFixed(1)} s (${Math.round(N / seconds)} msg/s)`);
  assert.equal(sink.distinct(), N);
  assert.equal(sink.total(), N);
  assert.ok([...sink.counts.values()].every((n) => n === 1));
  assert.deepEqual(await ledgerCounts(s.db, id), { sent: N });
  assert.equal(done.stats.sent, N);
  const events = await s.db
    .selectFrom('events')
    .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('type', 'in', ['email.sent', 'campaign.sent'])
    .groupBy('type')
    .execute();
  assert.deepEqual(Object.fromEntries(events.map((e) => [e.type, Number(e.n)])), {
    'email.sent': N,
    'campaign.sent': 1,
  });
});
