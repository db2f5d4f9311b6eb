// End to end: an account adds news.example.test, the test's DNS server publishes the records the product
// answered, verify says verified, and a campaign from hello@news.example.test reaches the SMTP sink signed
// with that domain's key (mailauth verifies it against the test DNS, h= covering List-Unsubscribe-Post),
// with List-Id and Feedback-ID, over an EHLO naming the instance. Mail from a domain the account has not
// verified is signed with the instance key instead; a test send is signed like the campaign.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, test } from 'node:test';
import { dkimVerify } from 'mailauth';
import { createResolver } from '../../../src/mail/dns.ts';
import { sendCampaignTo } from '../../support/campaigns.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';
import { until } from '../../support/until.ts';

const sink = await startSink();
after(() => sink.close());
const dns = await startDnsServer(fileScope);
const instance = generateKeyPairSync('rsa', { modulusLength: 2048 });
dns.set('inst._domainkey.mailgrove.test', 'TXT', [
  `v=DKIM1; k=rsa; p=${instance.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
]);
const s = await startServer(fileScope, {
  SMTP_URL: sink.url,
  DNS_SERVERS: dns.server,
  PUBLIC_URL: 'https://mail.mailgrove.test',
  WORKER_POLL_MS: 100,
  DKIM_DOMAIN: 'mailgrove.test',
  DKIM_SELECTOR: 'inst',
  DKIM_PRIVATE_KEY: instance.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
});
const resolve = createResolver([dns.server], 2000).resolve;
const verify = async (raw: Buffer) => (await dkimVerify(raw, { resolver: resolve as never })).results[0]!;
const received = (to: string) => sink.messages.find((m) => m.to.includes(to));

test('a verified domain signs its mail; others get the instance key', async () => {
  const { api, accountId } = await s.restAccount();
  const d = (await api.post('/sending-domains', { domain: 'news.example.test' })).body.data;
  for (const r of d.dns_records) dns.set(r.name, r.type, [r.value]);
  assert.equal((await api.post(`/sending-domains/${d.id}/verify`, {})).body.data.status, 'verified');

  const { campaignId } = await sendCampaignTo(s.db, api, accountId, ['signed@example.org'], {
    from_email: 'hello@news.example.test',
    from_name: 'News',
  });
  const m = received('signed@example.org')!;
  assert.ok(m, 'delivered');
  const result = await verify(m.raw);
  assert.equal(result.status.result, 'pass', JSON.stringify(result.status));
  assert.equal(result.signingDomain, 'news.example.test');
  assert.equal(result.selector, d.selector);
  const head = m.raw
    .toString('latin1')
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ');
  const h = /DKIM-Signature:.*?h=([^;]+);/.exec(head)![1]!.split(':');
  assert.ok(h.includes('list-unsubscribe-post') && h.includes('list-id') && h.includes('feedback-id'));
  assert.equal(h.filter((x) => x === 'from').length, 2);
  assert.match(head, new RegExp(`\r\nList-Id: <${accountId}\\.news\\.example\\.test>`));
  assert.match(head, new RegExp(`Feedback-ID: ${campaignId}:${accountId}:campaign:mail\\.mailgrove\\.test`));
  assert.equal(m.helo, 'mail.mailgrove.test');

  // a test send of the campaign is signed by the same key
  const sent = await api.post(`/campaigns/${campaignId}/test`, { emails: ['tester@example.org'] });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  await until(() => received('tester@example.org'));
  const testResult = await verify(received('tester@example.org')!.raw);
  assert.equal(testResult.status.result, 'pass');
  assert.equal(testResult.signingDomain, 'news.example.test');

  // another account sending from the same domain has not proven it: the instance key signs
  const other = await s.restAccount();
  await sendCampaignTo(s.db, other.api, other.accountId, ['unsigned@example.org'], {
    from_email: 'hello@news.example.test',
  });
  const fallback = await verify(received('unsigned@example.org')!.raw);
  assert.equal(fallback.status.result, 'pass');
  assert.equal(fallback.signingDomain, 'mailgrove.test');
});
