// Provider detection asks the product's resolver: with DNS_SERVERS set, a recipient domain's MX comes from
// those servers (here the test's own), so a domain hosted at Google is paced as Google.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import type { Db } from '../../../src/db/client.ts';
import { Pacing } from '../../../src/domain/delivery/pacing.ts';
import { startDnsServer } from '../../support/dnsServer.ts';

test('provider MX lookups go through DNS_SERVERS', async (t) => {
  const dns = await startDnsServer(t);
  dns.set('hosted.example.test', 'MX', [{ exchange: 'aspmx.l.google.com', priority: 1 }]);
  const config = loadConfig({ DNS_SERVERS: dns.server }, {});
  const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;
  const pacing = new Pacing({ db: {} as Db, config, log: silent });
  assert.deepEqual(await pacing.providersOf(['a@hosted.example.test', 'b@nowhere.example.test']), [
    'google',
    'nowhere.example.test',
  ]);
  assert.ok(dns.queries.includes('MX hosted.example.test'));
});
