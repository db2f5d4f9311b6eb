// The event feed's cheap path (an import's events must not cost the webhook and automation
// readers a full read when nobody consumes them): a reader with `wanted` steps over runs of events nobody
// wants without calling its handler, still hands every wanted event to it exactly once, and keeps the
// gap rules — an event in flight is neither skipped nor lost, wanted or not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../../src/db/client.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { automationWanted, EventFeed, webhookWanted, type FeedBatch } from '../../../src/domain/events/feed.ts';
import { recordEvent, type EventType } from '../../../src/domain/events/log.ts';
import { fanOut } from '../../../src/domain/webhooks/delivery.ts';
import * as webhooks from '../../../src/domain/webhooks/webhooks.ts';
import { backend, migratedDb } from '../../support/db.ts';

const testDb = await migratedDb();
const db = testDb.db;
const quiet = (await accounts.create(db, { name: 'Quiet' }, 100)).id; // an account nobody consumes
const hooked = (await accounts.create(db, { name: 'Hooked' }, 100)).id; // an account with a webhook for subscriber.updated only
await webhooks.create(
  db,
  hooked,
  { url: 'http://127.0.0.1:9/h', events: ['subscriber.updated'] },
  { ALLOW_PRIVATE_WEBHOOK_URLS: true },
);
let n = 0;

/** a fresh reader with the webhook filter, starting at the log's end */
async function newFeed(batchSize = 50, skipStride = 200) {
  const feed = new EventFeed(`skip-${++n}`, batchSize, { seqsOnly: true, wanted: webhookWanted, skipStride });
  while ((await feed.consume(db, async () => {})) > 0);
  return feed;
}

const event = (accountId: string, label: string, type: EventType = 'subscriber.updated', trx: Db = db) =>
  recordEvent(trx, accountId, type, { n: label });

/** Consumes until caught up (or 5 s for a gap that waits on other sessions); returns the labels of the events in the handled ranges and the handler calls. */
async function drain(feed: EventFeed, want = 0) {
  const labels: string[] = [];
  let calls = 0;
  let moved = 0;
  const handle = async (trx: Db, b: FeedBatch) => {
    calls++;
    assert.deepEqual(b.events, [], 'a seqsOnly reader gets no rows');
    const { rows } = await sql<{
      n: string;
    }>`select data->>'n' as n from events where seq > ${b.fromSeq} and seq <= ${b.toSeq} order by seq`.execute(trx);
    labels.push(...rows.map((r) => r.n));
  };
  const until = Date.now() + 5000;
  for (;;) {
    const k = await feed.consume(db, handle);
    moved += k;
    if (k > 0) continue;
    if (moved >= want || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { labels, calls, moved };
}

describe('Event feed with a wanted filter', () => {
  test('a long run nobody wants is stepped over in strides without the handler; the cursor ends past it', async () => {
    const feed = await newFeed(50, 200);
    for (let i = 0; i < 450; i++) await event(quiet, `q${i}`);
    let rounds = 0;
    let calls = 0;
    for (let k; (k = await feed.consume(db, async () => void calls++)) > 0;) rounds++;
    assert.equal(calls, 0, 'the handler never ran');
    assert.equal(rounds, 2, '450 events in strides of 200; the last stride, reaching the end, reports caught up');
    const { rows } = await sql<{
      last_seq: number;
      max: number;
    }>`select last_seq, (select max(seq) from events) as max from event_cursors where name = ${feed.name}`.execute(db);
    assert.equal(Number(rows[0]!.last_seq), Number(rows[0]!.max));
  });

  test('wanted events reach the handler once each, in batches; the unwanted ones between them are skipped', async () => {
    const feed = await newFeed(50, 200);
    const wanted: string[] = [];
    for (let i = 0; i < 300; i++) {
      await event(quiet, `q${i}`);
      if (i % 60 === 0) {
        await event(hooked, `w${i}`);
        wanted.push(`w${i}`);
      }
      if (i % 90 === 0) await event(hooked, `created${i}`, 'subscriber.created'); // a type the webhook does not take
    }
    const seen = await drain(feed);
    assert.deepEqual(
      seen.labels.filter((l) => l.startsWith('w')),
      wanted,
      'every wanted event, once, in order',
    );
    assert.ok(seen.calls <= wanted.length, `the handler ran only for wanted events (${seen.calls} calls)`);
    assert.deepEqual((await drain(feed)).labels, [], 'nothing is told twice');
  });

  test('with the real fan-out: deliveries for exactly the subscribed events, none for other accounts or types', async () => {
    const acc = (await accounts.create(db, { name: 'Fan' }, 100)).id;
    const hook = await webhooks.create(
      db,
      acc,
      { url: 'http://127.0.0.1:9/f', events: ['subscriber.created'] },
      { ALLOW_PRIVATE_WEBHOOK_URLS: true },
    );
    const all = await webhooks.create(
      db,
      acc,
      { url: 'http://127.0.0.1:9/all', events: ['*'], enabled: false },
      { ALLOW_PRIVATE_WEBHOOK_URLS: true },
    );
    const feed = await newFeed(20, 100);
    for (let i = 0; i < 150; i++) await event(quiet, `q${i}`, 'subscriber.created');
    for (let i = 0; i < 5; i++) await event(acc, `c${i}`, 'subscriber.created');
    for (let i = 0; i < 5; i++) await event(acc, `u${i}`, 'subscriber.updated');
    while ((await feed.consume(db, async (trx, b) => void (await fanOut(trx, b)))) > 0);
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'event_type'])
      .where('account_id', '=', acc)
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.webhook_id, r.event_type]),
      Array.from({ length: 5 }, () => [hook.id, 'subscriber.created']),
    );
    assert.equal(rows.filter((r) => r.webhook_id === all.id).length, 0, 'a disabled webhook gets nothing');
  });

  test('automations: only accounts with an enabled automation are wanted', async () => {
    const acc = (await accounts.create(db, { name: 'Auto' }, 100)).id;
    const feed = new EventFeed(`skip-${++n}`, 50, { seqsOnly: true, wanted: automationWanted });
    while ((await feed.consume(db, async () => {})) > 0);
    await sql`insert into automations (account_id, name, enabled, enabled_at, trigger, steps)
      values (${acc}, 'Welcome', true, now(), '{"type":"subscriber_created"}'::jsonb, '[]'::jsonb)`.execute(db);
    await event(quiet, 'q', 'subscriber.created');
    await event(acc, 'a', 'subscriber.created');
    const seen = await drain(feed, 2);
    assert.deepEqual(seen.labels, ['a'], 'the quiet account is stepped over, the one with an automation is handled');
    assert.equal(seen.calls, 1);
  });

  test('a gap left by a rolled-back transaction is stepped over, wanted events after it are handled', async () => {
    const feed = await newFeed();
    await event(quiet, 'before');
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await event(hooked, 'rolled back', 'subscriber.updated', trx);
        throw new Error('rollback');
      }),
    );
    await event(hooked, 'after');
    const seen = await drain(feed, 2);
    assert.deepEqual(
      seen.labels.filter((l) => l !== 'before'),
      ['after'],
    );
  });

  test(
    'PostgreSQL: a wanted event whose transaction commits late is not skipped with the unwanted ones around it',
    { skip: backend !== 'postgres' && 'needs a second connection' },
    async () => {
      const feed = await newFeed();
      const other = new pg.Client(testDb.clientConfig);
      await other.connect();
      try {
        await event(quiet, 'q1');
        await other.query('begin');
        // takes the lower seq, commits last
        await other.query(
          `insert into events (account_id, type, data) values ($1, 'subscriber.updated', '{"n":"slow"}')`,
          [hooked],
        );
        await event(quiet, 'q2');
        await event(hooked, 'fast');
        const early = await drain(feed, 0);
        assert.deepEqual(early.labels, [], 'waits at the gap: nothing after it is handled or skipped');
        await other.query('commit');
        const seen = await drain(feed, 3);
        assert.deepEqual(
          seen.labels.filter((l) => l === 'slow' || l === 'fast'),
          ['slow', 'fast'],
        );
      } finally {
        await other.end();
      }
    },
  );
});
