// Webhook lists come back as one Page (items, page, per_page, total): the webhooks of an account and the
// delivery log of one, which get_webhook also shows (its 10 most recent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as delivery from '../../../src/domain/webhooks/delivery.ts';
import * as webhooks from '../../../src/domain/webhooks/webhooks.ts';
import { Validation } from '../../../src/domain/errors.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const loopback = { ALLOW_PRIVATE_WEBHOOK_URLS: true };

test('list pages newest first and clamps per_page', async () => {
  const accountId = (await accounts.create(db, { name: 'List' }, 100)).id;
  for (const name of ['a', 'b', 'c'])
    await webhooks.create(db, accountId, { name, url: 'http://127.0.0.1:9/h', events: ['*'] }, loopback);
  const first = await webhooks.list(db, accountId, { per_page: 2 });
  assert.deepEqual(
    { ...first, items: first.items.map((w) => w.name) },
    { items: ['c', 'b'], page: 1, per_page: 2, total: 3 },
  );
  assert.deepEqual(
    (await webhooks.list(db, accountId, { page: 2, per_page: 2 })).items.map((w) => w.name),
    ['a'],
  );
  assert.equal((await webhooks.list(db, accountId, { per_page: 500 })).per_page, 100);
});

test('deliveries page the fan-out of events, filter by status, and get shows the most recent', async () => {
  const accountId = (await accounts.create(db, { name: 'Log' }, 100)).id;
  const hook = await webhooks.create(
    db,
    accountId,
    { url: 'http://127.0.0.1:9/h', events: ['subscriber.created'] },
    loopback,
  );
  for (const email of ['one@example.com', 'two@example.com', 'three@example.com'])
    await subscribers.create(db, accountId, { email });
  const feed = delivery.eventFeed();
  let queued = 0;
  for (;;) {
    const round = await delivery.fanOutNext(db, feed);
    queued += round.queued;
    if (round.handled === 0) break;
  }
  assert.equal(queued, 3);

  const page = await webhooks.deliveries(db, accountId, hook.id, { per_page: 2 });
  assert.deepEqual({ ...page, items: page.items.length }, { items: 2, page: 1, per_page: 2, total: 3 });
  assert.ok(
    page.items.every((d) => d.status === 'pending' && d.event_type === 'subscriber.created' && d.attempts.length === 0),
  );
  assert.equal((await webhooks.deliveries(db, accountId, hook.id, { status: 'delivered' })).total, 0);
  assert.equal((await webhooks.get(db, accountId, hook.id)).recent_deliveries.length, 3);
});

test('the delivery log filters by event type and by a time window; bad filters are refused', async () => {
  const accountId = (await accounts.create(db, { name: 'Filters' }, 100)).id;
  const hook = await webhooks.create(
    db,
    accountId,
    { url: 'http://127.0.0.1:9/h', events: ['subscriber.created', 'subscriber.updated'] },
    loopback,
  );
  const sub = await subscribers.create(db, accountId, { email: 'filtered@example.com' });
  await subscribers.update(db, accountId, sub.id, { first_name: 'Fil' });
  const feed = delivery.eventFeed();
  while ((await delivery.fanOutNext(db, feed)).handled > 0);
  const day = (iso: string) => db.updateTable('webhook_deliveries').set({ created_at: new Date(iso) });
  await day('2026-03-01T10:00:00Z')
    .where('webhook_id', '=', hook.id)
    .where('event_type', '=', 'subscriber.created')
    .execute();
  await day('2026-03-05T10:00:00Z')
    .where('webhook_id', '=', hook.id)
    .where('event_type', '=', 'subscriber.updated')
    .execute();

  const types = async (q: Record<string, unknown>) =>
    (await webhooks.deliveries(db, accountId, hook.id, q)).items.map((d) => d.event_type);
  assert.deepEqual(await types({ event: 'subscriber.updated' }), ['subscriber.updated']);
  assert.deepEqual(await types({ since: '2026-03-02' }), ['subscriber.updated']);
  assert.deepEqual(await types({ until: '2026-03-02T00:00:00Z' }), ['subscriber.created']);
  assert.deepEqual(await types({ since: '2026-03-01T00:00:00Z', until: '2026-03-06', event: 'subscriber.created' }), [
    'subscriber.created',
  ]);
  assert.equal((await webhooks.deliveries(db, accountId, hook.id, { since: '2026-04-01' })).total, 0);
  for (const bad of [{ event: 'subscriber.exploded' }, { event: '*' }, { since: 'yesterday' }, { until: '2026-13-45' }])
    await assert.rejects(webhooks.deliveries(db, accountId, hook.id, bad), Validation, JSON.stringify(bad));
  await assert.rejects(
    webhooks.deliveries(db, accountId, hook.id, { since: '2026-03-05', until: '2026-03-01' }),
    /since must not be after until/,
  );
});
