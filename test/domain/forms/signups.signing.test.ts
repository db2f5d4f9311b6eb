// The double opt-in confirmation mail goes out as the account's campaigns do: from an account whose
// sending domain is verified it is DKIM-signed with that domain's key (mailauth verifies it against the
// test's DNS server), and once the account adds a relay for that domain it leaves through the relay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dkimVerify } from 'mailauth';
import { createResolver } from '../../../src/mail/dns.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';
import { until } from '../../support/until.ts';

const sink = await startSink();
const relaySink = await startSink();
const dns = await startDnsServer(fileScope);
const s = await startServer(fileScope, {
  SMTP_URL: sink.url,
  DNS_SERVERS: dns.server,
  PUBLIC_URL: 'https://mail.mailgrove.test',
  ALLOW_PRIVATE_SMTP_RELAYS: true,
});
fileScope.after(() => sink.close());
fileScope.after(() => relaySink.close());
const resolve = createResolver([dns.server], 2000).resolve;

async function signUp(formId: string, email: string) {
  const res = await fetch(`${s.url}/f/${formId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email }),
  });
  assert.equal(res.status, 200, await res.text());
}

test("a confirmation mail is signed with the account's verified domain key, and follows its relay", async () => {
  const { api } = await s.restAccount();
  const d = (await api.post('/sending-domains', { domain: 'news.example.test' })).body.data;
  for (const r of d.dns_records) dns.set(r.name, r.type, [r.value]);
  assert.equal((await api.post(`/sending-domains/${d.id}/verify`, {})).body.data.status, 'verified');
  const account = await api.put('/account', {
    default_from_email: 'hello@news.example.test',
    default_from_name: 'News',
  });
  assert.equal(account.status, 200, JSON.stringify(account.body));
  const group = (await api.post('/groups', { name: 'Readers' })).body.data;
  const form = (await api.post('/forms', { name: 'Newsletter', double_opt_in: true, group_ids: [group.id] })).body.data;

  await signUp(form.id, 'reader@example.org');
  await until('the confirmation mail', () => sink.messages.find((m) => m.to.includes('reader@example.org')));
  const mail = sink.messages.find((m) => m.to.includes('reader@example.org'))!;
  assert.match(String(mail.parsed?.html), /\/f\/confirm\//, 'the confirmation mail');
  const result = (await dkimVerify(mail.raw, { resolver: resolve as never })).results[0]!;
  assert.equal(result.status.result, 'pass', JSON.stringify(result.status));
  assert.equal(result.signingDomain, 'news.example.test');
  assert.equal(result.selector, d.selector);

  // a relay for the domain: the next confirmation leaves through it, signed alike
  const relay = await api.post('/relays', {
    name: 'Own',
    url: `smtp://127.0.0.1:${relaySink.port}?starttls=false`,
    from_domains: ['news.example.test'],
  });
  assert.equal(relay.status, 201, JSON.stringify(relay.body));
  await signUp(form.id, 'second@example.org');
  await until('the relayed confirmation', () => relaySink.messages.find((m) => m.to.includes('second@example.org')));
  assert.equal(sink.messages.filter((m) => m.to.includes('second@example.org')).length, 0);
  const relayed = relaySink.messages.find((m) => m.to.includes('second@example.org'))!;
  const relayedResult = (await dkimVerify(relayed.raw, { resolver: resolve as never })).results[0]!;
  assert.equal(relayedResult.status.result, 'pass');
  assert.equal(relayedResult.signingDomain, 'news.example.test');
  await api.delete(`/relays/${relay.body.data.id}`); // its connection says QUIT before the sink closes
});
