// The plain table of the big providers: by their users' domains and by their MX hosts, synchronously.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainOf, knownProviderOf, providerOfMxHost } from '../../src/mail/providers.ts';

test('the big providers are known by their domains, synchronously', () => {
  assert.equal(knownProviderOf('gmail.com'), 'google');
  assert.equal(knownProviderOf('GoogleMail.com'), 'google');
  assert.equal(knownProviderOf('hotmail.co.uk'), 'microsoft');
  assert.equal(knownProviderOf('live.se'), 'microsoft');
  assert.equal(knownProviderOf('msn.com'), 'microsoft');
  assert.equal(knownProviderOf('yahoo.co.jp'), 'yahoo');
  assert.equal(knownProviderOf('ymail.com'), 'yahoo');
  assert.equal(knownProviderOf('aol.com'), 'yahoo');
  assert.equal(knownProviderOf('me.com'), 'apple');
  assert.equal(knownProviderOf('icloud.com.'), 'apple');
  assert.equal(knownProviderOf('acme.example'), undefined);
  assert.equal(domainOf('Ann@Example.ORG'), 'example.org');
});

test('MX hosts map to providers', () => {
  assert.equal(providerOfMxHost('mta7.am0.yahoodns.net'), 'yahoo');
  assert.equal(providerOfMxHost('mx01.mail.icloud.com'), 'apple');
  assert.equal(providerOfMxHost('mx.example.com'), 'example.com');
  assert.equal(providerOfMxHost('localhost'), 'localhost');
});
