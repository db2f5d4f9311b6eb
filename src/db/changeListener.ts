// Hears other processes' writes on PostgreSQL: triggers on the tables behind cached reads send
// `pg_notify('mailgrove_changed', '')` (migration 20261121_1150_change_notify.sql) and this connection, one
// per process, ticks the change clock for each. While it is not connected the clock is not reliable, so
// no cache trusts itself across an outage; it reconnects every second.
import pg from 'pg';
import type { ChangeClock } from './changeClock.ts';

export const CHANGE_CHANNEL = 'mailgrove_changed';
const RECONNECT_MS = 1000;

export function listenForChanges(config: pg.ClientConfig, clock: ChangeClock): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const down = () => {
    clock.setReliable(false);
    const dead = client;
    client = undefined;
    dead?.removeAllListeners();
    dead?.on('error', () => {});
    dead?.end().catch(() => {});
    if (!closed && !retry) retry = setTimeout(connect, RECONNECT_MS).unref();
  };

  async function connect() {
    retry = undefined;
    if (closed) return;
    const c = new pg.Client({ ...config, keepAlive: true });
    client = c;
    c.on('error', down);
    c.on('end', () => client === c && down());
    c.on('notification', () => clock.tick());
    try {
      await c.connect();
      await c.query(`listen ${CHANGE_CHANNEL}`);
      if (client === c) clock.setReliable(true);
    } catch {
      if (client === c) down();
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      clock.setReliable(false);
      c?.removeAllListeners();
      c?.on('error', () => {});
      await c?.end().catch(() => {});
    },
  };
}
