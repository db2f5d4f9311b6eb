// The one rule for hosts the product connects to on someone's behalf (webhooks, SMTP relays, bounce
// mailboxes): only plain public unicast addresses pass; names are judged by every address they resolve to.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPrivateAddress } from '../../src/mail/publicHost.ts';

describe('public host › addresses', () => {
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
    '::7f00:1', // IPv4-compatible (::/96): what the URL parser makes of [::127.0.0.1]
    '::ffff:7f00:1',
    '64:ff9b::7f00:1', // NAT64
    '64:ff9b:1::1',
    '2002:7f00:1::', // 6to4
    '2001::1', // Teredo
    '100::1', // discard
    '2001:db8::1',
    '192.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '240.0.0.1',
    'example.com',
  ];
  for (const address of refused) test(`${address} is private`, () => assert.equal(isPrivateAddress(address), true));
  const allowed = [
    '93.184.216.34',
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ];
  for (const address of allowed) test(`${address} is public`, () => assert.equal(isPrivateAddress(address), false));
});
