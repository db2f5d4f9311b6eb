// webhook SSRF rule: http(s) only; no private, loopback or link-local targets unless
// ALLOW_PRIVATE_WEBHOOK_URLS — checked when a URL is saved and again when a delivery connects.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { post, refusalOf } from '../../../src/domain/webhooks/target.ts';
import { mcpAccount } from '../../http/mcp/client.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { startServer } from '../../support/server.ts';

const PRIVATE_URL = 'URL must not point to a private, loopback or link-local address';

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
    ['http://[::127.0.0.1]/hook', PRIVATE_URL],
    ['http://[::ffff:127.0.0.1]/hook', PRIVATE_URL],
    ['http://[::ffff:7f00:1]/hook', PRIVATE_URL],
    ['http://[64:ff9b::7f00:1]/hook', PRIVATE_URL],
    ['http://[2002:7f00:1::]/hook', PRIVATE_URL],
    ['http://[fe80::1]/hook', PRIVATE_URL],
    ['http://[::]/hook', PRIVATE_URL],
    ['http://[ff02::1]/hook', PRIVATE_URL],
    ['http://0.0.0.0/hook', PRIVATE_URL],
    ['http://100.64.0.1/hook', PRIVATE_URL],
    ['http://169.254.169.254/hook', PRIVATE_URL],
    ['http://224.0.0.1/hook', PRIVATE_URL],
    ['http://255.255.255.255/hook', PRIVATE_URL],
    ['http://0/hook', PRIVATE_URL],
    ['http://2130706433/hook', PRIVATE_URL], // 127.0.0.1 written as one decimal number
    ['http://0x7f.1/hook', PRIVATE_URL],
    ['https://:@example.com/', 'URL must not contain credentials'],
    ['https://u:p@example.com/', 'URL must not contain credentials'],
    ['https://@example.com/', 'URL must not contain credentials'],
    ['https://u@93.184.215.14/', 'URL must not contain credentials'],
    ['http://example.com:0/', 'URL must not use port 0'],
    ['http://93.184.215.14:00/', 'URL must not use port 0'],
  ];
  for (const [url, reason] of cases)
    test(`${url} → "${reason}"`, async () => assert.equal(await refusalOf(url, false), reason));

  for (const url of ['https://93.184.216.34/hook', 'http://93.184.215.14:8080/x?a=b@c', 'https://[2606:4700::1111]/'])
    test(`${url} is accepted`, async () => assert.equal(await refusalOf(url, false), null));
  test('names are resolved through DNS_SERVERS, not the system resolver', async (t) => {
    const dns = await startDnsServer(t);
    const servers = { DNS_SERVERS: dns.server };
    dns.set('hook.acme.test', 'A', ['93.184.216.34']);
    dns.set('inside.acme.test', 'A', ['10.0.0.9']);
    assert.equal(await refusalOf('https://hook.acme.test/x', false, servers), null);
    assert.equal(await refusalOf('https://inside.acme.test/x', false, servers), PRIVATE_URL);
    assert.equal(await refusalOf('https://gone.acme.test/x', false, servers), 'URL host could not be resolved');
    assert.ok(dns.queries.includes('A inside.acme.test'));
    // at delivery time too: a name re-pointed at a private address is refused before any connection
    dns.set('hook.acme.test', 'A', ['127.0.0.1']);
    const r = await post('http://hook.acme.test:9/x', '{}', {}, { timeoutMs: 2000, allowPrivate: false, dns: servers });
    assert.equal(r.error, PRIVATE_URL);
  });

  test('ALLOW_PRIVATE_WEBHOOK_URLS=true accepts loopback, still not other schemes', async () => {
    assert.equal(await refusalOf('http://localhost:3000/hook', true), null);
    assert.equal(await refusalOf('ftp://localhost/hook', true), 'URL must use http or https');
    assert.equal(await refusalOf('http://[::127.0.0.1]/hook', true), null);
    assert.equal(await refusalOf('https://:@localhost/hook', true), 'URL must not contain credentials');
    assert.equal(await refusalOf('http://localhost:0/hook', true), 'URL must not use port 0');
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

  test('a kept-alive connection reset by the receiver is not a failure: the POST goes again on a new one', async (t) => {
    // the receiver resets every connection at its second request, as one that closed it while idle would
    const served = new WeakMap<object, number>();
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (n > 1) return void req.socket.resetAndDestroy();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const opts = { timeoutMs: 10_000, allowPrivate: true };
    for (let i = 0; i < 3; i++) {
      const r = await post(url, '{}', {}, opts);
      assert.deepEqual([r.ok, r.status_code, r.response, r.error], [true, 200, 'ok', null], JSON.stringify(r));
    }
    assert.ok(requests >= 4, `the reset connections were used: ${requests} requests`);
  });

  test('2xx within the timeout is delivered; a slow receiver times out; a 3xx is not followed', async (t) => {
    const server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 5000);
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/big') return void res.end('x'.repeat(10_000));
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const opts = { timeoutMs: 300, allowPrivate: true };
    // only the slow receiver needs the short timeout; on a loaded machine 300 ms can pass before any answer
    const patient = { timeoutMs: 10_000, allowPrivate: true };
    assert.equal((await post(`${base}/ok`, '{}', {}, patient)).ok, true);
    const slow = await post(`${base}/slow`, '{}', {}, opts);
    assert.equal(slow.ok, false);
    assert.equal(slow.error, 'Timed out after 300 ms');
    // well before the receiver's late answer, with room for a busy machine
    assert.ok(slow.duration_ms >= 290 && slow.duration_ms < 4000, `duration ${slow.duration_ms}`);
    const redirect = await post(`${base}/redirect`, '{}', {}, patient);
    assert.deepEqual([redirect.ok, redirect.status_code], [false, 302]);
    const big = await post(`${base}/big`, '{}', {}, patient);
    assert.equal(big.response?.length, 1024, `response snippet is at most 1 KB: ${JSON.stringify(big)}`);
  });
});

describe('Webhook SSRF guard › through REST and MCP', async () => {
  const s = await startServer({ after });
  const refused: [string, string][] = [
    ['http://[::127.0.0.1]/hook', PRIVATE_URL],
    ['https://:@example.com/', 'URL must not contain credentials'],
    ['http://example.com:0/', 'URL must not use port 0'],
  ];

  test('REST POST /webhooks and PUT /webhooks/{id} → 400 naming url', async () => {
    const { api } = await s.restAccount();
    const made = await api.post('/webhooks', { url: 'https://93.184.215.14/hook', events: ['*'] });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    for (const [url, reason] of refused) {
      for (const res of [
        await api.post('/webhooks', { url, events: ['*'] }),
        await api.put(`/webhooks/${made.body.data.id}`, { url }),
      ]) {
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body.data, { url: [reason] }, url);
      }
    }
  });

  test('MCP create_webhook and update_webhook → tool error naming url', async () => {
    const { mcp } = await mcpAccount(s);
    const made = await mcp.call('create_webhook', { url: 'https://93.184.215.14/hook', events: ['*'] });
    assert.equal(made.isError, false, JSON.stringify(made.body));
    for (const [url, reason] of refused) {
      for (const r of [
        await mcp.call('create_webhook', { url, events: ['*'] }),
        await mcp.call('update_webhook', { webhook_id: made.body.data.id, url }),
      ]) {
        assert.equal(r.isError, true, url);
        assert.deepEqual(r.body, { error: reason, data: { url: [reason] } }, url);
      }
    }
  });
});
