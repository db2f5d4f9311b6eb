// /api/v1/external/sending-domains (our addition): add a domain (a 2048-bit key, the records to publish,
// the private key never shown), verify against the test's own DNS server (pending → verified, and a
// record that goes away → failed), list/get/delete, the campaigns scopes, hostile names as 400 and
// hostile DNS (silence, a huge answer, a wrong key) as recorded check failures, never a 5xx.
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, test } from 'node:test';
import { startDnsServer } from '../../support/dnsServer.ts';
import { fileScope } from '../../support/scope.ts';
import { keysOf, startServer } from '../../support/server.ts';

const dns = await startDnsServer(fileScope);
const s = await startServer(fileScope, { DNS_SERVERS: dns.server, PUBLIC_URL: 'https://mail.mailgrove.test' });
const MISSING = '00000000-0000-4000-8000-000000000000';

/** Publishes what the product asked for, as a marketer would at their DNS provider. */
function publish(records: { type: string; name: string; value: string }[]) {
  for (const r of records) {
    if (r.type === 'CNAME') dns.set(r.name, 'CNAME', [r.value]);
    else dns.set(r.name, 'TXT', [r.value]);
  }
}

describe('Sending domains', () => {
  test('add answers the records; verify follows DNS; list, get, delete', async () => {
    const { api, accountId } = await s.restAccount();
    const created = await api.post('/sending-domains', { domain: 'News.Example.TEST.' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const d = created.body.data;
    assert.equal(d.domain, 'news.example.test');
    assert.equal(d.status, 'pending');
    assert.ok(!JSON.stringify(created.body).includes('PRIVATE'), 'the private key is never returned');
    const byPurpose = Object.fromEntries(d.dns_records.map((r: any) => [r.purpose, r]));
    assert.deepEqual(Object.keys(byPurpose).sort(), ['dkim', 'dmarc', 'return_path', 'spf']);
    assert.equal(byPurpose.dkim.type, 'TXT');
    assert.equal(byPurpose.dkim.name, `${d.selector}._domainkey.news.example.test`);
    const p = /p=([A-Za-z0-9+/=]+)/.exec(byPurpose.dkim.value)![1]!;
    const key = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.deepEqual(byPurpose.spf, {
      type: 'TXT',
      name: 'news.example.test',
      value: 'v=spf1 include:mail.mailgrove.test ~all',
      purpose: 'spf',
    });
    assert.equal(byPurpose.dmarc.name, '_dmarc.news.example.test');
    assert.match(byPurpose.dmarc.value, /^v=DMARC1; p=/);
    assert.deepEqual(byPurpose.return_path, {
      type: 'CNAME',
      name: 'bounces.news.example.test',
      value: 'mail.mailgrove.test',
      purpose: 'return_path',
    });
    const stored = await s.db
      .selectFrom('sending_domains')
      .selectAll()
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.account_id, accountId);
    assert.match(stored.private_key_sealed, /^v1:/);
    assert.ok(!stored.private_key_sealed.includes('PRIVATE KEY'), 'sealed at rest');

    // nothing published yet: pending, each check says what is missing
    let v = await api.post(`/sending-domains/${d.id}/verify`, {});
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.data.status, 'pending');
    assert.deepEqual(
      v.body.data.checks.map((c: any) => [c.purpose, c.ok, c.found]),
      [
        ['dkim', false, null],
        ['spf', false, null],
        ['dmarc', false, null],
        ['return_path', false, null],
      ],
    );

    publish(d.dns_records);
    v = await api.post(`/sending-domains/${d.id}/verify`, {});
    assert.equal(v.body.data.status, 'verified', JSON.stringify(v.body));
    assert.ok(
      v.body.data.checks.every((c: any) => c.ok),
      JSON.stringify(v.body.data.checks),
    );

    const got = await api.get(`/sending-domains/${d.id}`);
    assert.equal(got.body.data.status, 'verified');
    assert.ok(got.body.data.verified_at);
    assert.deepEqual(keysOf(got.body.data), [
      'checked_at',
      'checks',
      'created_at',
      'dns_records',
      'domain',
      'id',
      'selector',
      'status',
      'verified_at',
    ]);
    const listed = await api.get('/sending-domains');
    assert.deepEqual(
      listed.body.data.sending_domains.map((x: any) => x.domain),
      ['news.example.test'],
    );

    // the record goes away: a verified domain becomes failed
    dns.set(byPurpose.dkim.name, 'TXT', []);
    v = await api.post(`/sending-domains/${d.id}/verify`, {});
    assert.equal(v.body.data.status, 'failed');

    assert.equal((await api.post('/sending-domains', { domain: 'news.example.test' })).status, 409);
    const del = await api.delete(`/sending-domains/${d.id}`);
    assert.equal(del.status, 200);
    assert.equal((await api.get(`/sending-domains/${d.id}`)).status, 404);
    assert.equal((await api.post(`/sending-domains/${d.id}/verify`, {})).status, 404);
  });

  test('two accounts with one domain: each proves its own key, nothing is shared', async () => {
    const a = await s.restAccount();
    const b = await s.restAccount();
    const da = (await a.api.post('/sending-domains', { domain: 'shared.example.test' })).body.data;
    const db = (await b.api.post('/sending-domains', { domain: 'shared.example.test' })).body.data;
    assert.notEqual(da.selector, db.selector);
    publish(da.dns_records);
    assert.equal((await a.api.post(`/sending-domains/${da.id}/verify`, {})).body.data.status, 'verified');
    // B's record is not there: A's key proves nothing for B
    assert.equal((await b.api.post(`/sending-domains/${db.id}/verify`, {})).body.data.status, 'pending');
    // A's key published under B's selector is not B's key
    const aKey = da.dns_records.find((r: any) => r.purpose === 'dkim').value;
    dns.set(`${db.selector}._domainkey.shared.example.test`, 'TXT', [aKey]);
    const wrong = (await b.api.post(`/sending-domains/${db.id}/verify`, {})).body.data;
    assert.equal(wrong.status, 'failed');
    assert.match(wrong.checks[0].message, /not this domain's key/);
    // B cannot see or touch A's row
    assert.equal((await b.api.get(`/sending-domains/${da.id}`)).status, 404);
    assert.equal((await b.api.delete(`/sending-domains/${da.id}`)).status, 404);
    assert.equal((await b.api.get(`/sending-domains/${MISSING}`)).status, 404);
    assert.equal((await b.api.get(`/sending-domains/not-a-uuid`)).status, 404);
  });

  test('names: IDN stored as punycode; non-domains are a 400 and store nothing', async () => {
    const { api, accountId } = await s.restAccount();
    const idn = await api.post('/sending-domains', { domain: 'Bücher.example.test' });
    assert.equal(idn.status, 201);
    assert.equal(idn.body.data.domain, 'xn--bcher-kva.example.test');
    assert.equal((await api.post('/sending-domains', { domain: 'xn--bcher-kva.example.test' })).status, 409);
    for (const bad of [
      '',
      'localhost',
      'com',
      'co.uk',
      '127.0.0.1',
      'a..b.test',
      '-a.example.test',
      'exa mple.test',
      'https://example.test/',
      'user@example.test',
      'x'.repeat(64) + '.example.test',
      'a.'.repeat(130) + 'test',
      'ex\u0000ample.test',
      42,
      null,
    ]) {
      const r = await api.post('/sending-domains', { domain: bad });
      assert.equal(r.status, 400, `${JSON.stringify(bad)} → ${r.status} ${JSON.stringify(r.body)}`);
    }
    assert.equal((await api.post('/sending-domains', { domain: 'ok.example.test', extra: 1 })).status, 400);
    assert.equal((await api.post('/sending-domains', {})).status, 400);
    const rows = await s.db
      .selectFrom('sending_domains')
      .select('domain')
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.domain),
      ['xn--bcher-kva.example.test'],
    );
  });

  test('hostile DNS: silence, a huge answer, a malformed key are recorded failures, not errors', async () => {
    const { api } = await s.restAccount();
    const d = (await api.post('/sending-domains', { domain: 'hostile.example.test' })).body.data;
    const dkimName = `${d.selector}._domainkey.hostile.example.test`;
    dns.silence(dkimName);
    dns.set('_dmarc.hostile.example.test', 'TXT', ['v=DMARC1; p=bogus']);
    dns.set('bounces.hostile.example.test', 'CNAME', ['elsewhere.example.test']);
    const v = await api.post(`/sending-domains/${d.id}/verify`, {});
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.data.status, 'pending');
    const byPurpose = Object.fromEntries(v.body.data.checks.map((c: any) => [c.purpose, c]));
    assert.equal(byPurpose.dkim.ok, false);
    assert.match(byPurpose.dkim.message, /in time/);
    assert.equal(byPurpose.spf.ok, false);
    assert.equal(byPurpose.dmarc.ok, false);
    assert.equal(byPurpose.return_path.ok, false);
    assert.equal(byPurpose.return_path.found, 'elsewhere.example.test');

    // a huge answer on a domain of its own: the test server writes it slowly, and the other checks of the
    // same verify would wait behind it
    const huge = (await api.post('/sending-domains', { domain: 'huge.example.test' })).body.data;
    dns.set(
      'huge.example.test',
      'TXT',
      Array.from({ length: 80 }, (_, i) => `v=spf1 ${'a'.repeat(200)}${i}`),
    );
    const vh = await api.post(`/sending-domains/${huge.id}/verify`, {});
    assert.equal(vh.status, 200);
    assert.equal(vh.body.data.checks.find((c: any) => c.purpose === 'spf').ok, false);

    const d2 = (await api.post('/sending-domains', { domain: 'garbled.example.test' })).body.data;
    dns.set(`${d2.selector}._domainkey.garbled.example.test`, 'TXT', ['v=DKIM1; k=rsa; p=!!!not base64!!!']);
    const v2 = await api.post(`/sending-domains/${d2.id}/verify`, {});
    assert.equal(v2.status, 200);
    assert.equal(v2.body.data.checks[0].ok, false);
    assert.match(v2.body.data.checks[0].found ?? '', /!!!/);
  });

  test('scopes: campaigns:read lists, campaigns:write adds, others are refused', async () => {
    const { accountId } = await s.restAccount();
    const reader = await s.newKey(accountId, ['campaigns:read']);
    const other = await s.newKey(accountId, ['subscribers:*']);
    const { restClient } = await import('../../support/server.ts');
    assert.equal((await restClient(s.url, reader.key).get('/sending-domains')).status, 200);
    assert.equal(
      (await restClient(s.url, reader.key).post('/sending-domains', { domain: 'r.example.test' })).status,
      403,
    );
    assert.equal((await restClient(s.url, other.key).get('/sending-domains')).status, 403);
  });
});
