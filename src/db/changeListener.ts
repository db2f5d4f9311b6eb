// Hears other processes' writes on PostgreSQL: triggers on the tables behind cached reads send
// `pg_notify('mailgrove_changed', '')` (migration 20261121_1150_change_notify.sql) and this connection, one
// per process, ticks the change clock for each. While it is not connected the clock is not reliable, so
// no cache trusts itself across an outage; it reconnects every second. The same connection hears revoked
// API keys (`mailgrove_key_revoked`, the key's id; migration 20261126_1910) and passes them on as notices.
import pg from 'pg';
import type { ChangeClock } from './changeClock.ts';
import type { Notices } from './notices.ts';

export const CHANGE_CHANNEL = 'mailgrove_changed';
export const KEY_REVOKED_CHANNEL = 'mailgrove_key_revoked';
const RECONNECT_MS = 1000;

export function listenForChanges(
  config: pg.ClientConfig,
  clock: ChangeClock,
  notices?: Notices,
): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const down = () => {
    clock.setReliable(false);
    notices?.setListening(false);
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
    c.on('notification', (msg) => {
      if (msg.channel === KEY_REVOKED_CHANNEL) {
        if (msg.payload) notices?.emit({ kind: 'key_revoked', id: msg.payload });
      } else clock.tick();
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANGE_CHANNEL}; listen ${KEY_REVOKED_CHANNEL}`);
      if (client === c) {
        clock.setReliable(true);
        notices?.setListening(true);
      }
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
      notices?.setListening(false);
      c?.removeAllListeners();
      c?.on('error', () => {});
      await c?.end().catch(() => {});
    },
  };
}
