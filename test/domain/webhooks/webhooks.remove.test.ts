// Deleting a webhook while its deliveries are being written: the delete takes the webhook's row and then
// its deliveries (the cascade); a writer that holds a delivery and then asks for the webhook's row makes a
// deadlock, which PostgreSQL ends by failing one of them. The delete runs again rather than answer 500.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { sql } from 'kysely';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as delivery from '../../../src/domain/webhooks/delivery.ts';
import * as webhooks from '../../../src/domain/webhooks/webhooks.ts';
import { backend, migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

test(
  'a delete that PostgreSQL picks as a deadlock victim runs again and deletes the webhook',
  { skip: backend === 'pglite' && 'PGlite has one session: nothing runs beside the delete' },
  async () => {
    const accountId = (await accounts.create(db, { name: 'Deadlock' }, 100)).id;
    const hook = await webhooks.create(
      db,
      accountId,
      { url: 'http://127.0.0.1:9/h', events: ['subscriber.created'] },
      { ALLOW_PRIVATE_WEBHOOK_URLS: true },
    );
    await subscribers.create(db, accountId, { email: 'one@example.com' });
    const feed = delivery.eventFeed();
    while ((await delivery.fanOutNext(db, feed)).handled > 0);

    let removing: Promise<void> | undefined;
    const writer = db.transaction().execute(async (trx) => {
      await sql`update webhook_deliveries set attempt_count = attempt_count where webhook_id = ${hook.id}`.execute(trx);
      removing = webhooks.remove(db, accountId, hook.id);
      removing.catch(() => {}); // awaited below
      await sleep(300); // the delete now holds the webhook's row and waits for the delivery's
      await sql`update webhooks set last_delivery_at = now() where id = ${hook.id}`.execute(trx);
    });
    const [written] = await Promise.allSettled([writer]);
    if (written.status === 'rejected') assert.equal((written.reason as { code?: string }).code, '40P01');
    const [deleted] = await Promise.allSettled([removing!]);
    assert.equal(deleted.status, 'fulfilled', deleted.status === 'rejected' ? String(deleted.reason) : '');
    const left = await sql<{ n: number }>`select count(*)::int as n from webhooks where id = ${hook.id}`.execute(db);
    assert.equal(left.rows[0]!.n, 0);
  },
);
