// webhook SSRF rule: http(s) only; no private, loopback or link-local targets unless
// ALLOW_PRIVATE_WEBHOOK_URLS — checked when a URL is saved and again when a delivery connects.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { isPrivateAddress, post, refusalOf } from '../../../src/domain/webhooks/target.ts';

const PRIVATE_URL = 'URL must not point to a private, loopback or link-local address';

describe('Webhook SSRF guard › addresses', () => {
  const refused = [
    '127.0.0.1',
    '127.8.9.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'ff02::1',
  ];
  for (const address of refused) test(`${address} is private`, () => assert.equal(isPrivateAddress(address), true));
  const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
  for (const address of allowed) test(`${address} is public`, () => assert.equal(isPrivateAddress(address), false));
});

describe('Webhook SSRF guard › URLs when saved', () => {
  const cases: [string, string][] = [
    ['ftp://example.com/hook', 'URL must use http or https'],
    ['file:///etc/passwd', 'URL must use http or https'],
    ['not a url', 'URL must be a valid http(s) URL'],
    ['http://user:pw@93.184.216.34/', 'URL must not contain credentials'],
    ['http://127.0.0.1:8080/hook', PRIVATE_URL],
    ['http://[::1]/hook', PRIVATE_URL],
    ['http://10.0.0.5/hook', PRIVATE_URL],
    ['http://169.254.169.254/latest/meta-data', PRIVATE_URL],
    // a hostname is resolved: localhost → 127.0.0.1 (and ::1)
    ['http://localhost:3000/hook', PRIVATE_URL],
    ['https://localhost/hook', PRIVATE_URL],
  ];
  for (const [url, reason] of cases)
    test(`${url} → "${reason}"`, async () => assert.equal(await refusalOf(url, false), reason));

  test('a public IP literal is accepted', async () =>
    assert.equal(await refusalOf('https://93.184.216.34/hook', false), null));
  test('ALLOW_PRIVATE_WEBHOOK_URLS=true accepts loopback, still not other schemes', async () => {
    assert.equal(await refusalOf('http://localhost:3000/hook', true), null);
    assert.equal(await refusalOf('ftp://localhost/hook', true), 'URL must use http or https');
  });
});

describe('Webhook SSRF guard › at delivery time (DNS rebinding)', () => {
  test('a delivery to a name that resolves to 127.0.0.1 is refused and never reaches the receiver', async (t) => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const { port } = server.address() as AddressInfo;
    const refused = await post(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: false });
    assert.equal(refused.ok, false);
    assert.equal(refused.status_code, null);
    assert.match(refused.error!, /private, loopback or link-local/);
    const literal = await post(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: false });
    assert.equal(literal.error, PRIVATE_URL);
    assert.equal(hits, 0);
    // the same target with private URLs allowed goes through: the refusal above was the guard, not the network
    const allowed = await post(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: true });
    assert.equal(allowed.ok, true);
    assert.equal(allowed.status_code, 200);
    assert.equal(allowed.response, 'ok');
    assert.equal(hits, 1);
  });

  test('2xx within the timeout is delivered; a slow receiver times out; a 3xx is not followed', async (t) => {
    const server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 1500);
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/big') return void res.end('x'.repeat(10_000));
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const opts = { timeoutMs: 300, allowPrivate: true };
    assert.equal((await post(`${base}/ok`, '{}', {}, opts)).ok, true);
    const slow = await post(`${base}/slow`, '{}', {}, opts);
    assert.equal(slow.ok, false);
    assert.equal(slow.error, 'Timed out after 300 ms');
    assert.ok(slow.duration_ms >= 290 && slow.duration_ms < 1400, `duration ${slow.duration_ms}`);
    const redirect = await post(`${base}/redirect`, '{}', {}, opts);
    assert.deepEqual([redirect.ok, redirect.status_code], [false, 302]);
    const big = await post(`${base}/big`, '{}', {}, opts);
    assert.equal(big.response!.length, 1024, 'response snippet is at most 1 KB');
  });
});
