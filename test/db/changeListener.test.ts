// PostgreSQL only: other processes' writes reach this process's change clock through LISTEN/NOTIFY
// (db/changeListener.ts, migration 20261121_1150_change_notify.sql), and an outage of that channel makes
// the clock unreliable (caches step aside) until it has reconnected.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ChangeClock } from '../../src/db/changeClock.ts';
import { listenForChanges } from '../../src/db/changeListener.ts';
import { migrate } from '../../src/db/migrate.ts';
import { backend, openTestDb, type TestDb } from '../support/db.ts';

const skip = backend !== 'postgres';
let tdb: TestDb;
let config: pg.ClientConfig;

before(async () => {
  if (skip) return;
  tdb = await openTestDb();
  await migrate(tdb.handle.db);
  config = { connectionString: tdb.url, options: `-c search_path=${tdb.schema},public` };
});
after(() => tdb?.destroy());

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) if (check()) return true;
  return false;
}

describe('change listener', { skip }, () => {
  test('a write to subscribers, memberships, notes or groups by another connection ticks the clock', async () => {
    const clock = new ChangeClock(false);
    const listener = listenForChanges(config, clock);
    const other = new pg.Client(config);
    await other.connect();
    try {
      assert.equal(await until(() => clock.reliable), true);
      const account = (await other.query(`insert into accounts (name, subscriber_limit) values ('Listener', 10) returning id`)).rows[0].id;
      const before = clock.now;
      await other.query(`insert into groups (account_id, name) values ($1, 'G')`, [account]);
      assert.equal(await until(() => clock.now > before), true, 'groups insert heard');
      const mid = clock.now;
      await other.query(`insert into subscribers (account_id, email) values ($1, 'heard@example.com')`, [account]);
      assert.equal(await until(() => clock.now > mid), true, 'subscribers insert heard');
      const quiet = clock.now;
      await other.query(`update accounts set name = 'Renamed' where id = $1`, [account]); // no trigger there
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(clock.now, quiet);
    } finally {
      await other.end();
      await listener.close();
    }
  });

  test('losing the connection makes the clock unreliable until it has listened again', async () => {
    const clock = new ChangeClock(false);
    const listener = listenForChanges({ ...config, application_name: 'mailgrove-listener-test' }, clock);
    const admin = new pg.Client(config);
    await admin.connect();
    try {
      assert.equal(await until(() => clock.reliable), true);
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'mailgrove-listener-test'`);
      assert.equal(await until(() => !clock.reliable), true, 'unreliable after the outage');
      assert.equal(await until(() => clock.reliable), true, 'reliable again after reconnecting');
    } finally {
      await admin.end();
      await listener.close();
    }
    assert.equal(clock.reliable, false, 'closed: not reliable');
  });
});
