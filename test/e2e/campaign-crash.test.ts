// the server (a real child process) is killed with SIGKILL in the
// middle of a send and started again. Nobody may get the campaign twice; only rows that were in flight
// (at most SEND_IN_FLIGHT per process) become 'interrupted' (never re-sent); the rows the killed
// worker had claimed but not handed to SMTP go back to the queue and are delivered after the restart, each
// once; the campaign still finishes as sent with recipients = sent + failed + skipped + interrupted. A
// retry re-sends the interrupted rows only when asked for them, and never a sent one.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { childServer } from '../support/childServer.ts';
import { client } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';

const N = 1000;
const SEND_CONCURRENCY = 5;

test('crash rule: kill -9 mid-send, restart: every recipient got the campaign at most once and the counts add up', async () => {
  const sink = await startSink({ parse: false, delayMs: 4 });
  after(() => sink.close());
  const server = await childServer({
    SMTP_URL: sink.url,
    WORKER_POLL_MS: '100',
    SEND_BATCH_SIZE: '100',
    SEND_LEASE_MS: '1500',
    SEND_CONCURRENCY: String(SEND_CONCURRENCY),
    SEND_IN_FLIGHT: String(2 * SEND_CONCURRENCY),
    REST_RATE_LIMIT: '100000',
  });
  after(() => server.destroy());
  await server.start();

  const admin = client(`${server.url}/admin/v1`, server.adminToken);
  const account = await admin.post('/accounts', { name: 'Crash test' });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const key = await admin.post(`/accounts/${account.body.data.id}/api-keys`, { name: 'crash', scopes: ['*'] });
  const api = client(`${server.url}/api/v1/external`, key.body.data.key);
  const group = await api.post('/groups', { name: 'Everyone' });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  for (let i = 0; i < N; i += 50) {
    const batch = Array.from({ length: Math.min(50, N - i) }, (_, j) =>
      api.post('/subscribers', { email: `c${i + j}@crash.test`, group_ids: [group.body.data.id] }),
    );
    for (const r of await Promise.all(batch)) assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const campaign = await api.post('/campaigns', {
    name: 'Crash',
    subject: 'Crash {{ subscriber.email }}',
    content_html: '<p>Hi</p>',
    group_ids: [group.body.data.id],
  });
  const id = campaign.body.data.id;
  assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);

  await sink.waitFor(() => sink.total() >= 250, 60_000);
  await server.kill9();
  const atKill = sink.total();
  assert.ok(atKill < N, `the kill came before the end (${atKill} delivered)`);

  await server.start();
  // fetch keeps sockets to the killed process in its pool; each fails once (ECONNRESET) before it is dropped
  const get = async (path: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await api.get(path);
      } catch (err) {
        if (attempt >= 100) throw err;
      }
    }
  };
  const until = Date.now() + 90_000;
  let c: any;
  for (;;) {
    c = (await get(`/campaigns/${id}`)).body.data;
    if (c?.status === 'sent') break;
    assert.ok(
      Date.now() < until,
      `campaign did not finish after the restart: ${JSON.stringify(c)}\n${server.output()}`,
    );
    await new Promise((r) => setTimeout(r, 200));
  }

  // at most once: no address reached the sink twice
  const twice = [...sink.counts.entries()].filter(([, n]) => n > 1);
  assert.deepEqual(twice, [], 'nobody got the campaign twice');

  const states = new Map<string, string>();
  for (let page = 1; ; page++) {
    const r = (await get(`/campaigns/${id}/recipients?per_page=100&page=${page}`)).body.data;
    for (const x of r.recipients) states.set(x.subscriber.email, x.state);
    if (page >= r.pagination.total_pages) break;
  }
  const count = (s: string) => [...states.values()].filter((x) => x === s).length;
  const [sent, failed, skipped, interrupted] = [count('sent'), count('failed'), count('skipped'), count('interrupted')];
  console.log(
    `kill -9 after ${atKill} delivered: sent ${sent}, interrupted ${interrupted}, failed ${failed}, skipped ${skipped}; sink ${sink.distinct()}`,
  );
  assert.equal(states.size, N);
  assert.equal(sent + failed + skipped + interrupted, N, 'recipients = sent + failed + skipped + interrupted');
  assert.deepEqual([c.stats.recipients, c.stats.sent, c.stats.interrupted, c.stats.pending], [N, sent, interrupted, 0]);
  assert.ok(interrupted > 0, 'the kill left rows in flight, now interrupted');
  assert.ok(
    interrupted <= 2 * SEND_CONCURRENCY,
    `only what was in flight is interrupted: ${interrupted} > SEND_IN_FLIGHT`,
  );
  assert.equal(sent, N - interrupted, 'every row that was not in flight is delivered after the restart');
  // everyone marked sent got it exactly once; an interrupted row may or may not have reached the sink
  for (const [email, state] of states) {
    const got = sink.counts.get(email) ?? 0;
    if (state === 'sent') assert.equal(got, 1, `${email} is sent`);
    else if (state !== 'interrupted') assert.equal(got, 0, `${email} is ${state}`);
  }
  assert.ok(sink.distinct() >= sent && sink.distinct() <= sent + interrupted);

  // retry: by default nothing (interrupted rows may have arrived); asked for, only the interrupted ones go again
  const retry = (body: unknown) => api.post(`/campaigns/${id}/retry`, body);
  assert.equal((await retry({})).body.data.requeued, 0);
  const before = new Map(sink.counts);
  assert.equal((await retry({ states: ['interrupted'] })).body.data.requeued, interrupted);
  const interruptedEmails = [...states].filter(([, st]) => st === 'interrupted').map(([email]) => email);
  await sink.waitFor(() => interruptedEmails.every((e) => (sink.counts.get(e) ?? 0) > (before.get(e) ?? 0)), 60_000);
  for (const [email, state] of states)
    if (state === 'sent') assert.equal(sink.counts.get(email), 1, `${email} was sent once and never again`);
  for (let i = 0; i < 100 && (await get(`/campaigns/${id}`)).body.data.status !== 'sent'; i++)
    await new Promise((r) => setTimeout(r, 100));
  const after2 = (await get(`/campaigns/${id}`)).body.data;
  assert.equal(after2.status, 'sent');
  assert.deepEqual([after2.stats.sent, after2.stats.interrupted], [N, 0], 'the retried rows are sent now');
});
