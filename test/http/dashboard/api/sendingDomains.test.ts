// /app/api/sending-domains (Settings → Sending domains): add, list, verify against the test's DNS, delete;
// a viewer reads but cannot change; another account's domain is 404. And /me's links_private, the banner's
// switch: true for links on a loopback address, false for a public https one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startDnsServer } from '../../../support/dnsServer.ts';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const dns = await startDnsServer(fileScope);
const s = await startServer(fileScope, { DNS_SERVERS: dns.server });

describe('dashboard sending domains', () => {
  test('add, list, verify, delete; roles; another account', async () => {
    const owner = await signedIn(s);
    const created = await owner.client.post('/sending-domains', { domain: 'dash.example.test' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const d = created.body.data;
    assert.equal((await owner.client.get('/sending-domains')).body.data.sending_domains[0].id, d.id);
    const dkim = d.dns_records.find((r: any) => r.purpose === 'dkim');
    dns.set(dkim.name, 'TXT', [dkim.value]);
    const v = await owner.client.post(`/sending-domains/${d.id}/verify`, {});
    assert.equal(v.body.data.status, 'verified', JSON.stringify(v.body));
    assert.equal((await owner.client.post('/sending-domains', { domain: 'not a domain' })).status, 400);

    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.get('/sending-domains')).status, 200);
    assert.equal((await viewer.client.post(`/sending-domains/${d.id}/verify`, {})).status, 403);
    assert.equal((await viewer.client.delete(`/sending-domains/${d.id}`)).status, 403);

    const stranger = await signedIn(s);
    assert.equal((await stranger.client.delete(`/sending-domains/${d.id}`)).status, 404);
    assert.equal((await owner.client.delete(`/sending-domains/${d.id}`)).status, 200);
  });

  test('/me says whether links in mail would point at a private address', async () => {
    const owner = await signedIn(s);
    assert.equal((await owner.client.get('/me')).body.data.links_private, true, 'http://127.0.0.1:port');
    const public_ = await startServer(fileScope, { PUBLIC_URL: 'https://mail.mailgrove.org' });
    const member = await signedIn(public_);
    assert.equal((await member.client.get('/me')).body.data.links_private, false);
  });
});
