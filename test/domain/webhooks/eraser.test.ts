// forget_subscriber: "erases the address everywhere it appears (… webhook payload log …)".
// Delivery payloads are frozen copies of events; forgetting a subscriber scrubs them and the response log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { EventFeed } from '../../../src/domain/events/feed.ts';
import { forgetSubscriber } from '../../../src/domain/forget/forget.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { fanOut } from '../../../src/domain/webhooks/delivery.ts';
import * as webhooks from '../../../src/domain/webhooks/webhooks.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

test('forget_subscriber scrubs the address from queued webhook payloads and logged responses, and only that one', async () => {
  const accountId = (await accounts.create(db, { name: 'Erase' }, 100)).id;
  const hook = await webhooks.create(
    db,
    accountId,
    { url: 'http://127.0.0.1:9/h', events: ['*'] },
    { ALLOW_PRIVATE_WEBHOOK_URLS: true },
  );
  const ada = await subscribers.create(db, accountId, { email: 'Ada.Lovelace+x@Example.com', first_name: 'Ada' });
  await subscribers.update(db, accountId, ada.id, { last_name: 'Lovelace' });
  await subscribers.create(db, accountId, { email: 'bob@example.com' });
  const feed = new EventFeed('webhooks');
  while ((await feed.consume(db, async (trx, b) => void (await fanOut(trx, b)))) > 0);
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'payload'])
    .where('webhook_id', '=', hook.id)
    .execute();
  assert.equal(deliveries.length, 3);
  const adaDelivery = deliveries.find((d) => (d.payload.data.subscriber as any).id === ada.id)!;
  await db
    .insertInto('webhook_delivery_attempts')
    .values({
      account_id: accountId,
      delivery_id: adaDelivery.id,
      attempt: 1,
      status_code: 400,
      duration_ms: 3,
      response: 'rejected ada.lovelace+x@example.com, sorry',
    })
    .execute();

  await forgetSubscriber(db, 'secret', accountId, ada.id);

  const after = await db
    .selectFrom('webhook_deliveries')
    .select(['payload'])
    .where('webhook_id', '=', hook.id)
    .execute();
  const texts = after.map((d) => JSON.stringify(d.payload));
  assert.equal(texts.filter((t) => /ada\.lovelace/i.test(t)).length, 0, 'no payload names the address');
  const adaPayloads = after.filter((d) => (d.payload.data.subscriber as any)?.id === ada.id);
  assert.equal(adaPayloads.length, 2);
  for (const p of adaPayloads)
    assert.deepEqual(p.payload.data.subscriber, { id: ada.id }, 'names and other fields are gone too');
  assert.ok(
    texts.some((t) => t.includes('bob@example.com')),
    "another subscriber's deliveries are untouched",
  );
  const attempt = await db
    .selectFrom('webhook_delivery_attempts')
    .select('response')
    .where('delivery_id', '=', adaDelivery.id)
    .executeTakeFirstOrThrow();
  assert.equal(attempt.response, 'rejected [forgotten], sorry');
});
