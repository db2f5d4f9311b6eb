// /app/api/warmup (Settings → Warm-up) and the warm-up part of a campaign's progress: create, list with
// today's cap and use, delete; field errors; a viewer reads but cannot write; another account's plan is 404.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { seedAudience } from '../../../support/campaigns.ts';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { startSink } from '../../../support/smtpSink.ts';
import { until } from '../../../support/until.ts';
import { signedIn } from '../session.ts';

const sink = await startSink({ parse: false });
after(() => sink.close());
const s = await startServer(fileScope, { WORKER_POLL_MS: 100, SMTP_URL: sink.url });

describe('dashboard warm-up', () => {
  test('create, list, delete; field errors; roles and another account', async () => {
    const owner = await signedIn(s);
    const created = await owner.client.post('/warmup', { domain: 'dash.example', first_day_cap: 10, days: 3 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const plan = created.body.data;
    assert.deepEqual({ ...plan.today, resets_at: undefined }, { day: 1, cap: 10, used: 0, resets_at: undefined });
    assert.deepEqual((await owner.client.get('/warmup')).body.data.plans, [plan]);

    const bad = await owner.client.post('/warmup', { domain: 'dash.example', growth: 0 });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.growth);
    assert.equal((await owner.client.post('/warmup', { domain: 'DASH.example' })).status, 409);

    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.get('/warmup')).body.data.plans.length, 1);
    assert.equal((await viewer.client.post('/warmup', { domain: 'viewer.example' })).status, 403);
    assert.equal((await viewer.client.delete(`/warmup/${plan.id}`)).status, 403);

    const stranger = await signedIn(s);
    assert.deepEqual((await stranger.client.get('/warmup')).body.data.plans, []);
    assert.equal((await stranger.client.delete(`/warmup/${plan.id}`)).status, 404);

    assert.deepEqual((await owner.client.delete(`/warmup/${plan.id}`)).body.data, { id: plan.id, deleted: true });
    assert.deepEqual((await owner.client.get('/warmup')).body.data.plans, []);
  });

  test('the progress of a campaign held back by the warm-up says how many wait until when', async () => {
    const { client, accountId } = await signedIn(s);
    const plan = (await client.post('/warmup', { domain: 'progress.example', first_day_cap: 2 })).body.data;
    const { groupId } = await seedAudience(s.db, accountId, 4, { domain: 'to-progress.test' });
    const c = (
      await client.post('/campaigns', {
        name: 'P',
        subject: 'Hi',
        from_email: 'news@progress.example',
        content_format: 'html',
        content_source: '<p>Hi</p>',
        group_ids: [groupId],
      })
    ).body.data;
    assert.equal((await client.post(`/campaigns/${c.id}/schedule`, { delivery: 'instant' })).status, 200);
    const progress = await until('the warm-up to hold the campaign', async () => {
      const p = (await client.get(`/campaigns/${c.id}/progress`)).body.data;
      return p.warmup?.today.used === 2 && p.sent === 2 ? p : undefined;
    });
    assert.equal(progress.status, 'sending');
    assert.deepEqual(
      { domain: progress.warmup.domain, waiting: progress.warmup.waiting, resumes_at: progress.warmup.resumes_at },
      { domain: 'progress.example', waiting: 2, resumes_at: plan.today.resets_at },
    );
    await client.delete(`/warmup/${plan.id}`);
    const done = await until('the send to finish', async () => {
      const p = (await client.get(`/campaigns/${c.id}/progress`)).body.data;
      return p.status === 'sent' ? p : undefined;
    });
    assert.equal(done.warmup, null);
    assert.equal(done.sent, 4);
  });
});
