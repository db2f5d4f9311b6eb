// Warm-up of a sending domain, end to end: the real server (a child process) sends a campaign larger than
// the domain's first-day cap through an SMTP sink. It sends exactly the cap and waits; the server is
// stopped and started again on the same database; when the (simulated) next day comes, the rest goes out
// by itself. Every recipient gets the campaign exactly once. A day lasts DAY_MS here (WARMUP_TIME_SCALE).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { childServer } from '../support/childServer.ts';
import { client } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';

const N = 12;
const CAP = 5;
const DAY_MS = 30_000;

test('a campaign above the warm-up cap sends the cap, survives a restart and finishes the next day, once each', async () => {
  const sink = await startSink({ parse: false });
  after(() => sink.close());
  const server = await childServer({
    SMTP_URL: sink.url,
    WORKER_POLL_MS: '100',
    REST_RATE_LIMIT: '100000',
    WARMUP_TIME_SCALE: String(86_400_000 / DAY_MS),
  });
  after(() => server.destroy());
  await server.start();

  const admin = client(`${server.url}/admin/v1`, server.adminToken);
  const account = await admin.post('/accounts', { name: 'Warm-up' });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const key = await admin.post(`/accounts/${account.body.data.id}/api-keys`, { name: 'warm', scopes: ['*'] });
  const api = client(`${server.url}/api/v1/external`, key.body.data.key);
  const group = (await api.post('/groups', { name: 'Everyone' })).body.data;
  const emails = Array.from({ length: N }, (_, i) => `w${i}@warm-recipients.test`);
  for (const email of emails)
    assert.equal((await api.post('/subscribers', { email, group_ids: [group.id] })).status, 201);

  const plan = await api.post('/warmup', { domain: 'warm.example', first_day_cap: CAP, growth: 2, days: 2 });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const nextDay = Date.parse(plan.body.data.today.resets_at);
  const campaign = await api.post('/campaigns', {
    name: 'Warm',
    subject: 'Hello',
    from_email: 'news@Warm.Example',
    content_html: '<p>Hi</p>',
    group_ids: [group.id],
  });
  const id = campaign.body.data.id;
  assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);

  await sink.waitFor(() => sink.total() >= CAP, 20_000);
  await new Promise((r) => setTimeout(r, 1500)); // many rounds of the send lanes
  assert.ok(Date.now() < nextDay, 'still the first day (the machine was too slow to tell otherwise)');
  assert.equal(sink.total(), CAP, 'the first day sends exactly the cap');
  const waiting = (await api.get(`/campaigns/${id}`)).body.data;
  assert.equal(waiting.status, 'sending');
  assert.deepEqual(
    { waiting: waiting.warmup.waiting, resumes_at: waiting.warmup.resumes_at, domain: waiting.warmup.domain },
    { waiting: N - CAP, resumes_at: plan.body.data.today.resets_at, domain: 'warm.example' },
  );

  await server.stop();
  await server.start();
  if (Date.now() < nextDay - 1000) {
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sink.total(), CAP, 'nothing more before the next day, after the restart either');
  }

  const get = async (path: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await api.get(path);
      } catch (err) {
        // fetch may hold a socket to the stopped process; it fails once before it is dropped
        if (attempt >= 3) throw err;
      }
    }
  };
  const deadline = Date.now() + DAY_MS + 60_000;
  let status = '';
  while (Date.now() < deadline) {
    status = (await get(`/campaigns/${id}`)).body.data.status;
    if (status === 'sent') break;
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.equal(status, 'sent', server.output().slice(-4000));
  assert.ok(Date.now() >= nextDay, 'the rest went out on the next day, not before');
  assert.equal(sink.total(), N);
  for (const email of emails) assert.equal(sink.counts.get(email), 1, `${email} got it exactly once`);

  const day2 = (await get(`/warmup/${plan.body.data.id}`)).body.data.today;
  assert.deepEqual({ day: day2.day, cap: day2.cap, used: day2.used }, { day: 2, cap: 2 * CAP, used: N - CAP });
});
