// The daily re-check: domains not looked up for a day are checked again (claimed so a second instance
// skips them), and their status follows DNS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import * as sending from '../../../src/domain/sending/domains.ts';
import { migratedDb } from '../../support/db.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { newAccount } from '../../support/domain.ts';

test('recheckDue checks the domains due, once', async (t) => {
  const dns = await startDnsServer(t);
  const { db } = await migratedDb();
  const config = { ...loadConfig({ DNS_SERVERS: dns.server, PUBLIC_URL: 'https://m.example.test' }, {}), secret: 'k' };
  const accountId = await newAccount(db, 'Recheck');
  const d = await sending.add(db, config, accountId, { domain: 'daily.example.test' });
  const dkim = d.dns_records.find((r) => r.purpose === 'dkim')!;
  dns.set(dkim.name, 'TXT', [dkim.value]);
  assert.equal(await sending.recheckDue(db, config), 1, 'never checked: due');
  assert.equal((await sending.get(db, config, accountId, d.id)).status, 'verified');
  assert.equal(await sending.recheckDue(db, config), 0, 'checked just now: not due');
  // a day later the record is gone
  dns.set(dkim.name, 'TXT', []);
  await db
    .updateTable('sending_domains')
    .set({ checked_at: new Date(Date.now() - sending.RECHECK_MS - 1000) })
    .where('id', '=', d.id)
    .execute();
  assert.equal(await sending.recheckDue(db, config), 1);
  assert.equal((await sending.get(db, config, accountId, d.id)).status, 'failed');
});
