// The pages a subscriber sees and the double opt-in mail look like the product and stand alone: the
// unsubscribe pages and the "check your inbox" page carry a phone viewport, inline styles only, no
// external asset and a CSP that allows nothing else; the confirmation mail's HTML has the button and the
// link spelled out, with inline styles and no external asset.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { confirmationMail } from '../../../src/domain/forms/confirmationMail.ts';
import { unsubscribeToken } from '../../../src/mail/unsubscribe.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope);

function standsAlone(html: string) {
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.match(html, /<style>[^<]*#166534/, 'the dashboard accent, inline');
  assert.doesNotMatch(html, /<script|<link|<img|src=|url\(/i);
}

describe('public pages and the confirmation mail', () => {
  test('unsubscribe: the question, the done page and a bad link are styled pages with a strict CSP', async () => {
    const { accountId, key } = await s.newAccount();
    const sub = (await restClient(s.url, key).post('/subscribers', { email: 'ada@example.com' })).body.data;
    const url = `${s.url}/u/${unsubscribeToken(s.config.secret, accountId, sub.id)}`;
    const ask = await fetch(url);
    assert.match(ask.headers.get('content-security-policy')!, /^default-src 'none'; style-src 'unsafe-inline'/);
    const askHtml = await ask.text();
    standsAlone(askHtml);
    assert.match(askHtml, /<h1>Unsubscribe<\/h1>/);
    const done = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    const doneHtml = await done.text();
    standsAlone(doneHtml);
    assert.match(doneHtml, /<h1>Unsubscribed<\/h1>/);
    const bad = await fetch(`${s.url}/u/not-a-token`);
    assert.equal(bad.status, 404);
    standsAlone(await bad.text());
  });

  test('a double opt-in submission answers "Check your inbox" with the form name and what to do next', async () => {
    const { key } = await s.newAccount();
    const form = (await restClient(s.url, key).post('/forms', { name: 'Weekly <news>', double_opt_in: true })).body
      .data;
    const res = await fetch(`${s.url}/f/${form.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'email=grace%40example.com',
    });
    assert.equal(res.status, 200);
    const html = await res.text();
    standsAlone(html);
    assert.match(html, /<title>Check your inbox<\/title>/);
    assert.match(html, /<h1>Check your inbox<\/h1>/);
    assert.ok(html.includes('Weekly &lt;news&gt;'));
    assert.match(html, /Please open the link in it to confirm your subscription/);
  });

  test('the confirmation mail: escaped, the button and the link in words, inline styles, no external asset', () => {
    const link = 'https://mail.example.com/f/confirm/abc.def';
    const m = confirmationMail({ firstName: 'Ada <3', sender: 'Acme & Co', link });
    assert.equal(m.subject, 'Please confirm your subscription');
    assert.match(m.text, /^Hello Ada <3,\n\nPlease confirm that you want to receive email from Acme & Co:\n\nhttps:/);
    assert.ok(m.html.includes('Hello Ada &lt;3,'));
    assert.ok(m.html.includes('Acme &amp; Co'));
    assert.equal(m.html.split(`href="${link}"`).length - 1, 2, 'the button and the spelled-out link');
    assert.match(m.html, /<meta name="viewport"/);
    assert.doesNotMatch(m.html, /<style|<script|<link|<img|src=/i);
    assert.match(m.html, /max-width:520px/);
  });
});
