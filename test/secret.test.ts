// Secrets at rest: sealed under the instance secret, unreadable under another one or when altered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSecret, sealSecret } from '../src/secret.ts';

test('seal and open', () => {
  const sealed = sealSecret('s1', 'private key text');
  assert.match(sealed, /^v1:/);
  assert.ok(!sealed.includes('private'));
  assert.notEqual(sealSecret('s1', 'private key text'), sealed, 'a fresh IV each time');
  assert.equal(openSecret('s1', sealed), 'private key text');
  assert.throws(() => openSecret('s2', sealed));
  const altered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  assert.throws(() => openSecret('s1', altered));
  assert.throws(() => sealSecret('', 'x'));
});
