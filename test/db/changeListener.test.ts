// PostgreSQL only: other processes' writes reach this process's change clock through LISTEN/NOTIFY
// (db/changeListener.ts, migration 20261121_1150_change_notify.sql), and an outage of that channel makes
// the clock unreliable (caches step aside) until it has reconnected.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { ChangeClock } from '../../src/db/changeClock.ts';
import { listenForChanges } from '../../src/db/changeListener.ts';
import { backend, migratedDb } from '../support/db.ts';
import { until } from '../support/until.ts';

const skip = backend !== 'postgres';
const tdb = skip ? undefined : await migratedDb();
const config: pg.ClientConfig = tdb?.clientConfig ?? {};

describe('change listener', { skip }, () => {
  test('a write to subscribers, memberships, notes or groups by another connection ticks the clock', async () => {
    const clock = new ChangeClock(false);
    const listener = listenForChanges(config, clock);
    const other = new pg.Client(config);
    await other.connect();
    try {
      assert.equal(await until(() => clock.reliable, 5000), true);
      const account = (
        await other.query(`insert into accounts (name, subscriber_limit) values ('Listener', 10) returning id`)
      ).rows[0].id;
      const before = clock.now;
      await other.query(`insert into groups (account_id, name) values ($1, 'G')`, [account]);
      assert.equal(await until(() => clock.now > before, 5000), true, 'groups insert heard');
      const mid = clock.now;
      await other.query(`insert into subscribers (account_id, email) values ($1, 'heard@example.com')`, [account]);
      assert.equal(await until(() => clock.now > mid, 5000), true, 'subscribers insert heard');
      // only the tables behind cached reads notify (a write to accounts does not). Checked in the catalog:
      // the channel is the database's, and other test files write to it in schemas of their own meanwhile
      const notifying = await other.query(
        `select c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
          where p.proname = 'mailgrove_notify_changed' and c.relnamespace = current_schema()::regnamespace
          order by 1`,
      );
      assert.deepEqual(
        notifying.rows.map((r) => r.relname),
        ['groups', 'subscriber_groups', 'subscriber_notes', 'subscribers'],
      );
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
      assert.equal(await until(() => clock.reliable, 5000), true);
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'mailgrove-listener-test'`,
      );
      assert.equal(await until(() => !clock.reliable, 5000), true, 'unreliable after the outage');
      assert.equal(await until(() => clock.reliable, 5000), true, 'reliable again after reconnecting');
    } finally {
      await admin.end();
      await listener.close();
    }
    assert.equal(clock.reliable, false, 'closed: not reliable');
  });
});
