// Webhook lists come back as one Page (items, page, per_page, total): the webhooks of an account and the
// delivery log of one, which get_webhook also shows (its 10 most recent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as delivery from '../../../src/domain/webhooks/delivery.ts';
import * as webhooks from '../../../src/domain/webhooks/webhooks.ts';
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
