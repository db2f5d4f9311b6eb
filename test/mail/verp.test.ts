import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { readVerpAddress, readVerpToken, verpAddress, verpToken, type VerpTarget } from '../../src/mail/verp.ts';

const SECRET = 'verp-test-secret';
const targets: VerpTarget[] = [
  { kind: 'campaign', rowId: 1 },
  { kind: 'campaign', rowId: Number.MAX_SAFE_INTEGER },
  { kind: 'automation', emailId: randomUUID() },
  { kind: 'test', accountId: randomUUID() },
  { kind: 'confirmation', signupId: randomUUID() },
];

test('every kind of token reads back as what it names, for its own purpose only', () => {
  for (const t of targets) {
    for (const purpose of ['bounce', 'unsubscribe'] as const) {
      const token = verpToken(SECRET, purpose, t);
      assert.match(token, /^[a-z2-7]+$/);
      assert.deepEqual(readVerpToken(SECRET, purpose, token), t);
      assert.equal(readVerpToken(SECRET, purpose === 'bounce' ? 'unsubscribe' : 'bounce', token), undefined);
      assert.equal(readVerpToken('another-secret', purpose, token), undefined);
    }
  }
});

test('addresses fit a 64-character local part and survive a change of case', () => {
  for (const t of targets) {
    for (const purpose of ['bounce', 'unsubscribe'] as const) {
      const a = verpAddress(SECRET, purpose, t, 'Bounces.Example.COM');
      assert.ok(a.split('@')[0]!.length <= 64, a);
      assert.ok(a.endsWith('@bounces.example.com'));
      assert.deepEqual(readVerpAddress(SECRET, a.toUpperCase()), { purpose, target: t });
    }
  }
});

test('forged, truncated, extended or foreign addresses never name an email', () => {
  const good = verpAddress(SECRET, 'bounce', { kind: 'campaign', rowId: 42 }, 'b.example');
  const [local, domain] = good.split('@') as [string, string];
  const flips = [...local.slice('bounce+'.length)].map((_, i, chars) => {
    const c = [...chars];
    c[i] = c[i] === 'a' ? 'b' : 'a';
    return `bounce+${c.join('')}@${domain}`;
  });
  for (const a of [
    ...flips,
    `${local.slice(0, -1)}@${domain}`,
    `${local}a@${domain}`,
    `${local}!@${domain}`,
    `bounce+@${domain}`,
    `bounce+${'a'.repeat(500)}@${domain}`,
  ]) {
    const r = readVerpAddress(SECRET, a);
    assert.ok(r && 'invalid' in r, a);
  }
  assert.equal(readVerpAddress(SECRET, `someone@${domain}`), undefined);
  assert.equal(readVerpAddress(SECRET, `other+${local.slice(7)}@${domain}`), undefined);
  assert.equal(readVerpAddress(SECRET, 'no-at-sign'), undefined);
});
