// What a sending domain's name may be, and which domain an address belongs to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asciiDomain, domainOfAddress, organisationalDomain } from '../../../src/domain/sending/names.ts';

test('names become lower-case ASCII; what is no domain is null', () => {
  assert.equal(asciiDomain(' News.Example.COM. '), 'news.example.com');
  assert.equal(asciiDomain('@example.com'), 'example.com');
  assert.equal(asciiDomain('bücher.de'), 'xn--bcher-kva.de');
  assert.equal(asciiDomain('xn--bcher-kva.de'), 'xn--bcher-kva.de');
  for (const bad of ['com', 'co.uk', 'github.io', 'localhost', '10.0.0.1', 'a_b.example.com', 'a.-b.com', 'x/y.com'])
    assert.equal(asciiDomain(bad), null, bad);
  assert.equal(
    asciiDomain('a'.repeat(63) + '.' + 'b'.repeat(63) + '.' + 'c'.repeat(63) + '.' + 'd'.repeat(40) + '.com'),
    null,
  );
});

test('organisational domain and the domain of an address', () => {
  assert.equal(organisationalDomain('news.example.co.uk'), 'example.co.uk');
  assert.equal(organisationalDomain('a.b.example.test'), 'example.test');
  assert.equal(domainOfAddress('"Shop" <Hello@News.Example.com>'), 'news.example.com');
  assert.equal(domainOfAddress('hello@bücher.de'), 'xn--bcher-kva.de');
  assert.equal(domainOfAddress('no address'), null);
});
