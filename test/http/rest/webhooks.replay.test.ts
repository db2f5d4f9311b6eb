// POST /webhooks/{id}/deliveries/{delivery_id}/replay: a new delivery of a logged one, queued for the worker,
// that the receiver gets with the same body and a fresh, valid signature; the log keeps both.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startReceiver } from '../../support/receiver.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';

const { base, received, scripted } = await startReceiver();
const s = await startServer(fileScope, {
  ALLOW_PRIVATE_WEBHOOK_URLS: true,
  WEBHOOK_RETRY_SCHEDULE: '0.2',
  WEBHOOK_TIMEOUT_MS: 1500,
});

let pathNo = 0;
const hitsOf = (path: string) => received.filter((r) => r.path === path);

async function delivered() {
  const { accountId, key, api } = await s.restAccount();
  const path = `/replay-${++pathNo}`;
  const created = await api.post('/webhooks', { url: base + path, events: ['subscriber.created'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const hook = created.body.data as { id: string; secret: string };
  await api.post('/subscribers', { email: `replay${pathNo}@example.com` });
  const first = await until('the first delivery', async () => {
    const r = await api.get(`/webhooks/${hook.id}/deliveries`);
    return r.body.data.deliveries[0]?.status === 'delivered' && r.body.data.deliveries[0];
  });
  return { accountId, key, api, path, hook, first };
}

describe('Replaying a webhook delivery', () => {
  test('posts the same payload again, signed afresh, as a new delivery in the log (202)', async () => {
    const { api, path, hook, first } = await delivered();
    const replayed = await api.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`);
    assert.equal(replayed.status, 202, JSON.stringify(replayed.body));
    const d = replayed.body.data;
    assert.notEqual(d.id, first.id);
    assert.equal(d.replay_of, first.id);
    assert.equal(d.event_id, first.event_id);
    assert.equal(d.status, 'pending');
    assert.deepEqual(d.payload, first.payload);

    const [a, b] = await until('the replay', () => hitsOf(path).length === 2 && hitsOf(path));
    assert.equal(b!.body, a!.body, 'the same body');
    const verifier = new Webhook(hook.secret);
    for (const hit of [a!, b!]) assert.equal((verifier.verify(hit.body, hit.headers) as any).id, first.event_id);
    assert.equal(b!.headers['webhook-id'], a!.headers['webhook-id'], 'the same message to a receiver that dedupes');

    const log = await until('both delivered in the log', async () => {
      const r = await api.get(`/webhooks/${hook.id}/deliveries`);
      const ds = r.body.data.deliveries;
      return ds.length === 2 && ds.every((x: any) => x.status === 'delivered') && ds;
    });
    assert.deepEqual(log.map((x: any) => x.id).sort(), [first.id, d.id].sort());
    assert.equal(log.find((x: any) => x.id === d.id).attempts.length, 1);
  });

  test('a replay that fails is retried like any delivery; a replay of a replay keeps the first id', async () => {
    const { api, path, hook, first } = await delivered();
    scripted.set(path, [500]);
    const r1 = await api.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`);
    assert.equal(r1.status, 202);
    const retried = await until('the retried replay', async () => {
      const r = await api.get(`/webhooks/${hook.id}/deliveries`);
      const x = r.body.data.deliveries.find((y: any) => y.id === r1.body.data.id);
      return x?.status === 'delivered' && x;
    });
    assert.deepEqual(
      retried.attempts.map((a: any) => a.status_code),
      [500, 200],
    );
    const r2 = await api.post(`/webhooks/${hook.id}/deliveries/${r1.body.data.id}/replay`);
    assert.equal(r2.status, 202);
    assert.equal(r2.body.data.replay_of, first.id);
  });

  test("another account's webhook or delivery is a 404; a disabled webhook a 409; scope webhooks:write", async () => {
    const { accountId, api, hook, first } = await delivered();
    const other = await s.restAccount();
    const theirs = await other.api.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`);
    assert.equal(theirs.status, 404);
    const own = await other.api.post('/webhooks', { url: `${base}/other`, events: ['*'] });
    const mixed = await other.api.post(`/webhooks/${own.body.data.id}/deliveries/${first.id}/replay`);
    assert.equal(mixed.status, 404);
    assert.equal(mixed.body.error, 'Delivery not found');
    assert.equal((await api.post(`/webhooks/${hook.id}/deliveries/not-a-uuid/replay`)).status, 404);

    const readOnly = restClient(s.url, (await s.newKey(accountId, ['webhooks:read'])).key);
    assert.equal((await readOnly.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`)).status, 403);

    await api.put(`/webhooks/${hook.id}`, { enabled: false });
    const paused = await api.post(`/webhooks/${hook.id}/deliveries/${first.id}/replay`);
    assert.equal(paused.status, 409, JSON.stringify(paused.body));
    const after = await api.get(`/webhooks/${hook.id}/deliveries`);
    assert.equal(after.body.data.deliveries.length, 1, 'nothing queued');
  });
});
