// /app/api/webhooks: the event checklist from the domain's list, create with the secret shown once, edit,
// test event, delivery log and replay; 'manage' for changes, reads for every member; tenant scoping.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENTS } from '../../../../src/domain/webhooks/webhooks.ts';
import { startReceiver } from '../../../support/receiver.ts';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { until } from '../../../support/until.ts';
import { signedIn } from '../session.ts';

const { base, received } = await startReceiver();
const s = await startServer(fileScope, { ALLOW_PRIVATE_WEBHOOK_URLS: true, WEBHOOK_TIMEOUT_MS: 1500 });
const hitsOf = (path: string) => received.filter((r) => r.path === path);

describe('dashboard webhooks', () => {
  test('every event type of the domain with a line saying what it means', async () => {
    const { client } = await signedIn(s, 'viewer');
    const res = await client.get('/webhook-events');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.events.map((e: any) => e.type),
      [...WEBHOOK_EVENTS],
    );
    for (const e of res.body.data.events) assert.ok(e.description.length > 10, e.type);
  });

  test('create shows the secret once; list, get and edit never do; test event, log, replay', async () => {
    const { client } = await signedIn(s);
    const bad = await client.post('/webhooks', { url: `${base}/d1`, events: [] });
    assert.equal(bad.status, 400);
    const created = await client.post('/webhooks', { url: `${base}/d1`, events: ['subscriber.created'] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const hook = created.body.data;
    assert.match(hook.secret, /^whsec_/);

    const list = await client.get('/webhooks');
    assert.equal(list.body.data.pagination.total_count, 1);
    assert.equal(list.body.data.webhooks[0].id, hook.id);
    assert.equal(list.body.data.webhooks[0].last_delivery, null);
    assert.ok(!('secret' in list.body.data.webhooks[0]));
    const got = await client.get(`/webhooks/${hook.id}`);
    assert.equal(got.status, 200);
    assert.ok(!('secret' in got.body.data));

    const edited = await client.put(`/webhooks/${hook.id}`, { name: 'CRM', events: ['*'] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(edited.body.data.events, ['*']);
    assert.ok(!('secret' in edited.body.data));

    const tested = await client.post(`/webhooks/${hook.id}/test`);
    assert.equal(tested.status, 200, JSON.stringify(tested.body));
    assert.equal(tested.body.data.status, 'delivered');
    assert.equal(tested.body.data.status_code, 200);
    assert.equal((await client.get('/webhooks')).body.data.webhooks[0].last_delivery.status_code, 200);

    const log = await client.get(`/webhooks/${hook.id}/deliveries`);
    const [first] = log.body.data.deliveries;
    assert.equal(first.event_type, 'webhook.test');
    assert.equal(first.attempts[0].status_code, 200);
    assert.match(first.attempts[0].response, /answer 200/);

    const replayed = await client.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`);
    assert.equal(replayed.status, 202, JSON.stringify(replayed.body));
    assert.equal(replayed.body.data.replay_of, first.id);
    const [a, b] = await until('the replay', () => hitsOf('/d1').length === 2 && hitsOf('/d1'));
    assert.equal(b!.body, a!.body);
    new Webhook(hook.secret).verify(b!.body, b!.headers);
    await until('both in the log', async () => {
      const r = await client.get(`/webhooks/${hook.id}/deliveries`);
      return (
        r.body.data.pagination.total_count === 2 && r.body.data.deliveries.every((d: any) => d.status === 'delivered')
      );
    });

    assert.equal((await client.delete(`/webhooks/${hook.id}`)).status, 200);
    assert.equal((await client.get(`/webhooks/${hook.id}`)).status, 404);
  });

  test("changes need 'manage'; another account's webhook and delivery are 404", async () => {
    const owner = await signedIn(s);
    const hook = (await owner.client.post('/webhooks', { url: `${base}/d2`, events: ['*'] })).body.data;
    await owner.client.post(`/webhooks/${hook.id}/test`);
    const [delivery] = (await owner.client.get(`/webhooks/${hook.id}/deliveries`)).body.data.deliveries;

    const editor = await signedIn(s, 'editor', owner.accountId);
    assert.equal((await editor.client.get('/webhooks')).status, 200);
    assert.equal((await editor.client.get(`/webhooks/${hook.id}/deliveries`)).status, 200);
    assert.equal((await editor.client.post('/webhooks', { url: `${base}/x`, events: ['*'] })).status, 403);
    assert.equal((await editor.client.put(`/webhooks/${hook.id}`, { name: 'x' })).status, 403);
    assert.equal((await editor.client.post(`/webhooks/${hook.id}/test`)).status, 403);
    assert.equal((await editor.client.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/replay`)).status, 403);
    assert.equal((await editor.client.delete(`/webhooks/${hook.id}`)).status, 403);

    const stranger = await signedIn(s);
    assert.equal((await stranger.client.get(`/webhooks/${hook.id}`)).status, 404);
    assert.equal((await stranger.client.get(`/webhooks/${hook.id}/deliveries`)).status, 404);
    assert.equal((await stranger.client.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/replay`)).status, 404);
    const theirs = (await stranger.client.post('/webhooks', { url: `${base}/d3`, events: ['*'] })).body.data;
    const crossed = await stranger.client.post(`/webhooks/${theirs.id}/deliveries/${delivery.id}/replay`);
    assert.equal(crossed.status, 404);
    assert.equal(crossed.body.error, 'Delivery not found');
    assert.equal((await stranger.client.get('/webhooks')).body.data.pagination.total_count, 1);
  });
});
