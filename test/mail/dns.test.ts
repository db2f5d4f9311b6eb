// The one resolver: it asks the servers of DNS_SERVERS, bounds every answer, and fails a silent server
// with a timeout instead of hanging.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createResolver, dnsResolver, DNS_LIMITS } from '../../src/mail/dns.ts';
import { loadConfig } from '../../src/config.ts';
import { startDnsServer } from '../support/dnsServer.ts';

test('lookups go to the servers of DNS_SERVERS and nowhere else', async (t) => {
  const dns = await startDnsServer(t);
  dns.set('example.test', 'MX', [{ exchange: 'mx.example.test', priority: 10 }]);
  const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(600);
  dns.set('s1._domainkey.example.test', 'TXT', [long]);
  dns.set('alias.example.test', 'CNAME', ['target.example.test']);
  const resolver = dnsResolver(loadConfig({ DNS_SERVERS: dns.server }, {}));
  assert.deepEqual(await resolver.resolveMx('example.test'), [{ exchange: 'mx.example.test', priority: 10 }]);
  // a record longer than one 255-byte string comes back whole, in its strings
  assert.equal((await resolver.resolveTxt('s1._domainkey.example.test'))[0]!.join(''), long);
  assert.deepEqual(await resolver.resolveCname('alias.example.test'), ['target.example.test']);
  assert.deepEqual(await resolver.resolve('alias.example.test', 'CNAME'), ['target.example.test']);
  await assert.rejects(resolver.resolveTxt('missing.example.test'), (e: any) => e.code === 'ENOTFOUND');
  assert.ok(dns.queries.includes('MX example.test'));
});

test('a silent server is a timeout, a huge answer is refused, a non-name is not looked up', async (t) => {
  const dns = await startDnsServer(t);
  dns.silence('slow.example.test');
  dns.set(
    'huge.example.test',
    'TXT',
    Array.from({ length: DNS_LIMITS.records + 5 }, (_, i) => `record ${i} ${'x'.repeat(200)}`),
  );
  const resolver = createResolver([dns.server], 300);
  const started = Date.now();
  await assert.rejects(resolver.resolveTxt('slow.example.test'), (e: any) => e.code === 'ETIMEOUT');
  assert.ok(Date.now() - started < 5000, 'bounded by the timeout, not hung');
  // dns2 writes a large answer slowly: this one gets the time to arrive
  const patient = createResolver([dns.server], 5000);
  await assert.rejects(patient.resolveTxt('huge.example.test'), (e: any) => e.code === 'ETOOLARGE');
  await assert.rejects(resolver.resolveTxt('x'.repeat(300)), (e: any) => e.code === 'EBADNAME');
  await assert.rejects(resolver.resolve('example.test', 'ANY'), (e: any) => e.code === 'ENOTIMP');
});

test('DNS_SERVERS accepts ip:port lists and refuses anything else', () => {
  assert.equal(loadConfig({ DNS_SERVERS: '127.0.0.1:5353, [::1]:53,10.0.0.1' }, {}).DNS_SERVERS.length > 0, true);
  assert.throws(() => loadConfig({ DNS_SERVERS: 'dns.example.com:53' }, {}), /DNS_SERVERS/);
});
