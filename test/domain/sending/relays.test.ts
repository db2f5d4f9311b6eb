// Relays of an account (src/domain/sending/relays.ts): the routing rule (the relay whose from_domains hold
// the From address's domain, of the sender's own account only), the URL sealed at rest and never answered,
// the host's public-address rule at create (names through DNS_SERVERS), credentials blanked in errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { senderIdentity } from '../../../src/domain/sending/identity.ts';
import * as relays from '../../../src/domain/sending/relays.ts';
import { migratedDb } from '../../support/db.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { newAccount } from '../../support/domain.ts';

const PASSWORD = 'Secr3t/pass word';
const url = `smtps://mailer%40acme.test:${encodeURIComponent(PASSWORD)}@smtp.acme.test`;

test('the relay for a From address: its own account, its exact domain', async (t) => {
  const dns = await startDnsServer(t);
  dns.set('smtp.acme.test', 'A', ['93.184.216.34']);
  const { db } = await migratedDb();
  const config = { ...loadConfig({ DNS_SERVERS: dns.server }, {}), secret: 'k' };
  const a = await newAccount(db, 'Acme');
  const b = await newAccount(db, 'Other');
  const relay = await relays.add(db, config, a, {
    name: 'Acme relay',
    url,
    from_domains: ['acme.test', 'news.acme.test'],
  });
  assert.deepEqual([relay.host, relay.port, relay.secure, relay.has_credentials], ['smtp.acme.test', 465, true, true]);
  assert.ok(!JSON.stringify(relay).includes('Secr3t'), 'never answered');

  assert.equal(await relays.relayFor(db, a, 'News <hello@news.acme.test>'), relay.id);
  assert.equal(await relays.relayFor(db, a, 'hello@ACME.test'), relay.id);
  assert.equal(await relays.relayFor(db, a, 'hello@other.acme.test'), undefined, 'a subdomain not listed');
  assert.equal(await relays.relayFor(db, a, 'hello@example.org'), undefined);
  assert.equal(await relays.relayFor(db, b, 'hello@acme.test'), undefined, "another account's relay never");
  assert.equal(await relays.relayFor(db, a, 'not an address'), undefined);
  assert.deepEqual(await senderIdentity(db, config, a, 'hello@acme.test'), { relayId: relay.id });
  assert.deepEqual(await senderIdentity(db, config, b, 'hello@acme.test'), {});
  assert.deepEqual(await senderIdentity(db, config, null, 'hello@acme.test'), {});

  // sealed at rest; opened for the transport with the secret it was sealed under only
  const row = await db.selectFrom('smtp_relays').selectAll().where('id', '=', relay.id).executeTakeFirstOrThrow();
  assert.ok(!JSON.stringify(row).includes('Secr3t') && !JSON.stringify(row).includes('mailer'), JSON.stringify(row));
  const opened = await relays.relayUrl(db, config, a, relay.id);
  assert.equal(new URL(opened!).password, encodeURIComponent(PASSWORD));
  assert.equal(await relays.relayUrl(db, { secret: 'another' }, a, relay.id), undefined);
  assert.equal(await relays.relayUrl(db, config, b, relay.id), undefined);

  await assert.rejects(relays.remove(db, {} as never, b, relay.id), { kind: 'not_found' });
  let dropped = '';
  await relays.remove(db, { dropRelay: (id: string) => (dropped = id) } as never, a, relay.id);
  assert.equal(dropped, relay.id, 'the transport forgets it');
  assert.equal(await relays.relayFor(db, a, 'hello@acme.test'), undefined);
});

test('hosts at private addresses are refused at create, names resolved through DNS_SERVERS', async (t) => {
  const dns = await startDnsServer(t);
  dns.set('inside.acme.test', 'A', ['10.0.0.7']);
  dns.set('loop.acme.test', 'A', ['127.0.0.1']);
  dns.set('mixed.acme.test', 'A', ['93.184.216.34', '169.254.169.254']);
  dns.set('public.acme.test', 'A', ['93.184.216.34']);
  const { db } = await migratedDb();
  const config = { ...loadConfig({ DNS_SERVERS: dns.server }, {}), secret: 'k' };
  const a = await newAccount(db, 'Acme');
  const refused = async (host: string, message: RegExp) =>
    assert.rejects(
      relays.add(db, config, a, { name: host, url: `smtp://${host}`, from_domains: ['acme.test'] }),
      (err: any) => {
        assert.equal(err.kind, 'validation');
        assert.match(err.fields.url[0], message);
        return true;
      },
    );
  for (const host of [
    '127.0.0.1',
    '[::1]',
    '10.1.2.3',
    '169.254.169.254',
    'localhost',
    'inside.acme.test',
    'loop.acme.test',
    'mixed.acme.test',
  ])
    await refused(host, /private, loopback or link-local/);
  await refused('nowhere.acme.test', /could not be resolved/);
  assert.ok(dns.queries.includes('A loop.acme.test'), 'looked up through the test DNS server');
  assert.equal((await relays.list(db, a)).length, 0, 'nothing stored half-done');
  await relays.add(db, config, a, { name: 'ok', url: 'smtp://public.acme.test:2525', from_domains: ['acme.test'] });
  // ALLOW_PRIVATE_SMTP_RELAYS: loopback is fine (tests, a relay on the local network)
  const allowed = { ...config, ALLOW_PRIVATE_SMTP_RELAYS: true };
  await relays.add(db, allowed, a, { name: 'local', url: 'smtp://127.0.0.1:2525', from_domains: ['b.acme.test'] });
  assert.deepEqual(
    (await relays.list(db, a)).map((r) => [r.name, r.port]),
    [
      ['local', 2525],
      ['ok', 2525],
    ],
  );
});

test('withoutCredentials blanks the user name and password, raw and decoded', () => {
  const raw = `smtp://mailer%40acme.test:${encodeURIComponent(PASSWORD)}@smtp.acme.test`;
  assert.equal(
    relays.withoutCredentials(`535 mailer@acme.test: bad password ${PASSWORD} / ${encodeURIComponent(PASSWORD)}`, raw),
    '535 ***: bad password *** / ***',
  );
});
