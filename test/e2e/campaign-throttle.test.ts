// Per-provider throttling end to end: the real server sends to an SMTP sink that answers 421 4.7.0 to the
// first two messages for one provider (two domains whose MX is the same host). Only that provider backs off:
// its recipients wait in the queue ("deferred by" in the progress) while the other domains finish, then
// are delivered after the backoff; every recipient gets the campaign exactly once.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { useMxResolver } from '../../src/jobs/index.ts';
import * as reports from '../../src/domain/campaigns/reports.ts';
import { seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { fileScope } from '../support/scope.ts';
import { restClient, startServer, type TestServer } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';

const SLOW = ['slow-a.test', 'slow-b.test'];
const THROTTLED_REPLIES = 2;
let throttled = 0;
const sink: Sink = await startSink({
  parse: false,
  delayMs: 2,
  reply: (rcpt) => {
    if (SLOW.some((d) => rcpt.endsWith(`@${d}`)) && throttled < THROTTLED_REPLIES) {
      throttled++;
      return [421, '4.7.0 Too many messages from your IP, try again later'];
    }
    return undefined;
  },
});
after(() => sink.close());
// both slow domains are served by one host: one provider; the fast ones have no MX (each its own)
useMxResolver(async (domain) => {
  if (SLOW.includes(domain)) return [{ exchange: 'mx1.slowhost.test', priority: 10 }];
  throw Object.assign(new Error('queryMx ENOTFOUND'), { code: 'ENOTFOUND' });
});
after(() => useMxResolver(undefined));
const s: TestServer = await startServer(fileScope, {
  SMTP_URL: sink.url,
  WORKER_POLL_MS: 100,
  SCHEDULER_INTERVAL_MS: 200,
  SEND_CONCURRENCY: 2,
  SEND_BATCH_SIZE: 10,
  PROVIDER_BACKOFF_BASE_MS: 2500,
  PROVIDER_BACKOFF_MAX_MS: 5000,
  PROVIDER_LIMITS: '{"slowhost.test": {"concurrency": 1}}',
});

test('a throttling provider backs off alone: deferred, shown as such, then delivered once; the others finish first', async () => {
  const { accountId, key } = await s.newAccount();
  const other = await s.newAccount();
  const api = restClient(s.url, key);
  // the slow provider's rows are the lowest ids: claimed and tried first
  const groups = [
    await seedAudience(s.db, accountId, 4, { domain: SLOW[0], group: 'slow a' }),
    await seedAudience(s.db, accountId, 4, { domain: SLOW[1], group: 'slow b', start: 101 }),
    await seedAudience(s.db, accountId, 15, { domain: 'fast-one.test', group: 'fast 1', start: 201 }),
    await seedAudience(s.db, accountId, 15, { domain: 'fast-two.test', group: 'fast 2', start: 301 }),
  ];
  const created = await api.post('/campaigns', {
    name: 'Throttle',
    subject: 'Hello',
    content_html: '<p>Hi</p>',
    group_ids: groups.map((g) => g.groupId),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id;
  assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);

  const fast = () => [...sink.counts.keys()].filter((e) => e.includes('@fast-')).length;
  const slow = () => [...sink.counts.keys()].filter((e) => SLOW.some((d) => e.endsWith(`@${d}`))).length;
  // the other domains finish while the slow provider is still held back, and the progress says by whom
  let deferredSeen: { provider: string; until: string; recipients: number }[] = [];
  const until = Date.now() + 60_000;
  while (fast() < 30) {
    const p = await reports.progress(s.db, accountId, id);
    if (p.deferred_by.length > 0) deferredSeen = p.deferred_by;
    assert.ok(Date.now() < until, `the fast domains did not finish: ${fast()} of 30`);
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.ok(slow() < 8, `the slow provider was held back while the others finished (${slow()} of 8 delivered)`);
  assert.ok(throttled >= 1);
  if (deferredSeen.length === 0) deferredSeen = (await reports.progress(s.db, accountId, id)).deferred_by;
  assert.deepEqual(
    deferredSeen.map((d) => d.provider),
    ['slowhost.test'],
    'deferred by the slow provider only',
  );
  assert.ok(deferredSeen[0]!.recipients > 0 && Date.parse(deferredSeen[0]!.until) > Date.now() - 10_000);
  const backoff = await s.db.selectFrom('provider_backoff').selectAll().execute();
  assert.deepEqual(
    backoff.map((b) => b.provider),
    ['slowhost.test'],
    'the backoff is stored for every instance to see',
  );

  const done = await waitForCampaign(api, id, (c) => c.status === 'sent', 30_000);
  assert.deepEqual([done.stats.recipients, done.stats.sent, done.stats.failed, done.stats.interrupted], [38, 38, 0, 0]);
  assert.equal(sink.counts.size, 38);
  assert.equal(throttled, THROTTLED_REPLIES, 'tried again after each backoff until the provider took it');
  assert.deepEqual(
    [...sink.counts.entries()].filter(([, n]) => n !== 1),
    [],
    'each recipient exactly once',
  );
  // the deferred rows were not counted as attempts; a throttled one was
  const rows = await s.db
    .selectFrom('campaign_recipients')
    .select(['email', 'attempts', 'deferred_by', 'state'])
    .where('campaign_id', '=', id)
    .execute();
  const slowRows = rows.filter((r) => SLOW.some((d) => r.email.endsWith(`@${d}`)));
  assert.equal(
    slowRows.reduce((n, r) => n + r.attempts, 0),
    slowRows.length + THROTTLED_REPLIES,
    'one attempt per delivery plus one per 421, none for waiting',
  );
  assert.ok(
    slowRows.some((r) => r.deferred_by === 'slowhost.test'),
    'some rows waited without an attempt',
  );
  assert.ok(rows.filter((r) => !slowRows.includes(r)).every((r) => r.attempts === 1 && r.deferred_by === null));
  assert.deepEqual((await reports.progress(s.db, accountId, id)).deferred_by, [], 'nothing deferred once sent');
  // another account's campaign is not found
  await assert.rejects(reports.progress(s.db, other.accountId, id), (err: any) => err.kind === 'not_found');
});
