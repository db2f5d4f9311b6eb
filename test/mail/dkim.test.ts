// DKIM signatures as mailauth's verifier sees them, against keys published on the test's DNS server:
// a composed message verifies; h= oversigns From and covers List-Unsubscribe-Post; changing that header,
// adding a second From or touching the body breaks the signature.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { dkimVerify } from 'mailauth';
import { createResolver } from '../../src/mail/dns.ts';
import { dkimSign, SIGNED_HEADERS } from '../../src/mail/dkim.ts';
import { composeMessage } from '../../src/mail/mime.ts';
import { startDnsServer } from '../support/dnsServer.ts';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const key = { domainName: 'news.example.test', keySelector: 'sel1', privateKey: pem };

function message(html = '<p>Hello   there \t</p>\n\n') {
  return composeMessage({
    from: 'Shop <hello@news.example.test>',
    to: 'reader@example.org',
    replyTo: 'help@news.example.test',
    subject: 'Grüße aus dem Laden',
    html,
    text: 'Hello there  \n\n',
    headers: {
      'List-Unsubscribe': '<https://m.example.test/u/abc>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'List-Id': '<acc.news.example.test>',
      'Feedback-ID': 'c1:a1:campaign:m.example.test',
    },
    messageId: 'id1@m.example.test',
  })!;
}

test('signatures verify with mailauth; tampering breaks them', async (t) => {
  const dns = await startDnsServer(t);
  dns.set('sel1._domainkey.news.example.test', 'TXT', [`v=DKIM1; k=rsa; p=${p}`]);
  const resolver = createResolver([dns.server], 2000).resolve;
  const verify = async (raw: string | Buffer) =>
    (await dkimVerify(Buffer.from(raw), { resolver: resolver as never })).results[0]!;

  const signed = dkimSign(message().raw, key);
  const ok = await verify(signed);
  assert.equal(ok.status.result, 'pass', JSON.stringify(ok.status));
  assert.equal(ok.signingDomain, 'news.example.test');
  const h = /h=([^;]+);/.exec(signed.replace(/\r\n /g, ' '))![1]!.split(':');
  assert.deepEqual(h, [...SIGNED_HEADERS]);
  assert.equal(h.filter((x) => x === 'from').length, 2, 'From oversigned');
  assert.ok(h.includes('list-unsubscribe-post'));

  // a Buffer (nodemailer's composition) signs byte for byte
  assert.equal((await verify(dkimSign(Buffer.from(message().raw), key))).status.result, 'pass');

  const changedPost = signed.replace('List-Unsubscribe=One-Click', 'List-Unsubscribe=Other');
  assert.equal((await verify(changedPost)).status.result, 'fail');
  const droppedPost = signed.replace('List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n', '');
  assert.equal((await verify(droppedPost)).status.result, 'fail');
  const secondFrom = signed.replace('\r\nTo: ', '\r\nFrom: attacker@evil.example\r\nTo: ');
  // mailauth answers 'neutral' for a message with two From headers; what matters is that it does not pass
  assert.notEqual((await verify(secondFrom)).status.result, 'pass');
  const body = signed.replace('Hello there', 'Hello thief');
  const bodyResult = await verify(body); // mailauth: 'neutral', "body hash did not verify"
  assert.notEqual(bodyResult.status.result, 'pass');
  assert.match(JSON.stringify(bodyResult.status), /body hash/);
  const addedReplyTo = dkimSign(
    composeMessage({
      ...message(),
      from: 'hello@news.example.test',
      to: 'r@example.org',
      subject: 's',
      messageId: 'x@y',
    } as never)!.raw,
    key,
  );
  assert.equal((await verify(addedReplyTo)).status.result, 'pass');
});

test('each message has a boundary of its own', () => {
  const a = message().raw.match(/boundary="([^"]+)"/)![1];
  const b = message().raw.match(/boundary="([^"]+)"/)![1];
  assert.notEqual(a, b);
});
