// The status the DNS checks give: the account's DKIM key decides; a verified domain that loses it fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusOf } from '../../../src/domain/sending/checks.ts';

const checks = (dkim: boolean, found: string | null) => [
  { purpose: 'dkim' as const, ok: dkim, found },
  { purpose: 'spf' as const, ok: false, found: null },
];

test('statusOf', () => {
  assert.equal(statusOf(checks(true, 'v=DKIM1'), false), 'verified');
  assert.equal(statusOf(checks(false, null), false), 'pending');
  assert.equal(statusOf(checks(false, 'v=DKIM1; p=other'), false), 'failed');
  assert.equal(statusOf(checks(false, null), true), 'failed');
});
