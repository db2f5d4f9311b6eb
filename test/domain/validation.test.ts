// The shared input rules of domain/validation.ts, as every face sees them through zod.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { instant } from '../../src/domain/validation.ts';

const messagesFor = (value: unknown) => {
  const r = z.object({ at: instant() }).safeParse({ at: value });
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

test('instant: ISO 8601 with an offset or Z passes; anything else is one message, said once', () => {
  assert.deepEqual(messagesFor('2026-12-01T09:00:00+01:00'), []);
  assert.deepEqual(messagesFor('2026-12-01T08:00:00Z'), []);
  for (const bad of ['12345', '2026-12-01', '2026-02-30T09:00:00Z', '0000-01-01T00:00:00Z', '']) {
    const messages = messagesFor(bad);
    assert.equal(messages.length, 1, `${bad}: ${messages.join(' | ')}`);
    assert.match(messages[0]!, /ISO 8601 date-time with a UTC offset/);
  }
});
