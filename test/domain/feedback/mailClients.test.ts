// The client and device of a person's open or click: mail clients by their own tokens (Outlook, Thunderbird,
// Gmail's and Yahoo's image proxies), Apple Mail as WebKit without Safari's token, browsers by name, the rest
// "Other"; devices from ua-parser-js; and a parse is cached, boundedly, by user agent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mailClientOf } from '../../../src/domain/feedback/mailClients.ts';

// client | device | user agent
const TABLE = `
Web browser: Chrome | desktop | Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36
Apple Mail | mobile | Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148
Apple Mail | tablet | Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148
Apple Mail | desktop | Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)
Web browser: Mobile Safari | mobile | Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1
Outlook | desktop | Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)
Outlook | desktop | Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; Microsoft Outlook 16.0.5095; ms-office; MSOffice 16)
Outlook | mobile | Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Outlook-iOS/709.2226530.prod.iphone (4.2418.0)
Thunderbird | desktop | Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.6.0
Gmail | unknown | Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)
Yahoo Mail | unknown | YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html
Web browser: Chrome | mobile | Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36
Web browser: Firefox | desktop | Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0
Other | unknown | curl/8.0
`
  .trim()
  .split('\n')
  .map((line) => line.split(' | ') as [string, string, string]);

test('clients by their own tokens first, Apple Mail as bare WebKit, browsers by name; devices desktop, mobile, tablet or unknown', () => {
  for (const [client, device, ua] of TABLE) assert.deepEqual(mailClientOf(ua), { client, device }, ua);
  for (const none of [undefined, '', '  '])
    assert.deepEqual(mailClientOf(none), { client: 'Other', device: 'unknown' });
});

test('a cached result is the same; thousands of distinct hostile agents stay cheap and named plainly', () => {
  const ua = TABLE[0]![2];
  assert.equal(mailClientOf(ua), mailClientOf(ua));
  const started = performance.now();
  for (let i = 0; i < 3000; i++) {
    const r = mailClientOf(`${'x'.repeat(10_000)} Chrome/${i}.0 <script>${i}`);
    assert.ok(r.client.length <= 80 && !/[<>]/.test(r.client), r.client);
  }
  assert.ok(performance.now() - started < 5000, 'each parse reads at most 500 characters');
});
