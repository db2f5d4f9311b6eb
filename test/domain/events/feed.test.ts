// "Both read the events log, so nothing that happened is missed and nothing is told twice."
// The feed under webhook fan-out and automation triggers: in seq order, each event once, gaps from
// rolled-back transactions stepped over, and (PostgreSQL) an event still in flight never skipped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../../src/db/client.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { EventFeed, type FeedEvent } from '../../../src/domain/events/feed.ts';
import { recordEvent } from '../../../src/domain/events/log.ts';
import { backend, migratedDb } from '../../support/db.ts';

const testDb = await migratedDb();
const db = testDb.db;
const accountId = (await accounts.create(db, { name: 'Feed' }, 100)).id;
let n = 0;

/** a fresh feed that starts at the log's current end */
async function newFeed() {
  const feed = new EventFeed(`test-${++n}`, 50);
  await feed.consume(db, async () => {}); // creates the cursor at the end of the log
  while ((await feed.consume(db, async () => {})) > 0);
  return feed;
}

/** Consumes until `want` events were seen (or 5 s passed: a gap may wait on other sessions' writers), then a few more rounds. */
async function drain(feed: EventFeed, want = 0, extraRounds = 2): Promise<string[]> {
  const seen: string[] = [];
  const round = () =>
    feed.consume(db, async (_trx, b) => void seen.push(...b.events.map((e: FeedEvent) => e.data.n as string)));
  const until = Date.now() + 5000;
  while (seen.length < want && Date.now() < until)
    if ((await round()) === 0) await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < extraRounds; i++) await round();
  return seen;
}

const event = (label: string, trx: Db = db) => recordEvent(trx, accountId, 'subscriber.updated', { n: label });

describe('Event feed', () => {
  test('events come once each, in seq order, across batches', async () => {
    const feed = await newFeed();
    for (let i = 0; i < 120; i++) await event(`e${i}`);
    const seen = await drain(feed, 120);
    assert.deepEqual(
      seen,
      Array.from({ length: 120 }, (_, i) => `e${i}`),
    );
    assert.deepEqual(await drain(feed), [], 'nothing is told twice');
  });

  test('a crash in the handler rolls back the cursor with it: the batch is handled again, not lost', async () => {
    const feed = await newFeed();
    await event('a');
    await assert.rejects(
      feed.consume(db, async () => {
        throw new Error('crash');
      }),
      /crash/,
    );
    assert.deepEqual(await drain(feed, 1), ['a']);
  });

  test('two readers of one cursor (two instances) never both handle a batch', async () => {
    const feed = await newFeed();
    const twin = new EventFeed(feed.name, 10);
    for (let i = 0; i < 30; i++) await event(`t${i}`);
    // what a handler writes commits only with the cursor's advance: the loser's batch is rolled back
    await sql`create table feed_seen (n text not null)`.execute(db);
    const handle = async (trx: Db, b: { events: FeedEvent[] }) => {
      for (const e of b.events) await sql`insert into feed_seen values (${e.data.n as string})`.execute(trx);
    };
    for (let i = 0; i < 4; i++) await Promise.all([feed.consume(db, handle), twin.consume(db, handle)]);
    const { rows } = await sql<{ n: string }>`select n from feed_seen`.execute(db);
    assert.deepEqual(rows.map((r) => r.n).sort(), Array.from({ length: 30 }, (_, i) => `t${i}`).sort());
  });

  test('a gap left by a rolled-back transaction is stepped over once it is provably dead', async () => {
    const feed = await newFeed();
    await event('before');
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await event('rolled back', trx);
        throw new Error('rollback');
      }),
    );
    await event('after');
    assert.deepEqual(await drain(feed, 2), ['before', 'after']);
  });

  test(
    'PostgreSQL: an unrelated long write transaction does not hold a dead gap open',
    { skip: backend !== 'postgres' && 'needs a second connection' },
    async () => {
      const feed = await newFeed();
      const other = new pg.Client(testDb.clientConfig);
      await other.connect();
      try {
        await other.query('begin');
        await other.query(`update accounts set name = name where id = $1`, [accountId]); // holds an xid, writes no event
        await event('before');
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            await event('rolled back', trx);
            throw new Error('rollback');
          }),
        );
        await event('after');
        assert.deepEqual(await drain(feed, 2), ['before', 'after']);
      } finally {
        await other.query('rollback');
        await other.end();
      }
    },
  );

  test(
    'PostgreSQL: an event whose transaction commits late is not skipped',
    { skip: backend !== 'postgres' && 'needs a second connection' },
    async () => {
      const feed = await newFeed();
      const other = new pg.Client(testDb.clientConfig);
      await other.connect();
      try {
        await other.query('begin');
        // takes the lower seq, commits last
        await other.query(
          `insert into events (account_id, type, data) values ($1, 'subscriber.updated', '{"n":"slow"}')`,
          [accountId],
        );
        await event('fast');
        assert.deepEqual(await drain(feed, 0, 3), [], 'waits at the gap while its transaction is open');
        await other.query('commit');
        assert.deepEqual(await drain(feed, 2), ['slow', 'fast']);
      } finally {
        await other.end();
      }
    },
  );
});
