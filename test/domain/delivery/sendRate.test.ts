// SEND_RATE_PER_SECOND is global across instances — every sender takes its tokens from one
// bucket row in the database. Two gates (two instances) drawing together get the configured rate between
// them, not each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateGate } from '../../../src/domain/delivery/sendRate.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

test('SEND_RATE_PER_SECOND 50: two instances taking 100 messages together need about 2 s (not 1 s)', async () => {
  const [a, b] = [new RateGate(db, 50), new RateGate(db, 50)];
  const t0 = performance.now();
  await Promise.all(
    [a, b].map(async (gate) => {
      for (let i = 0; i < 50; i++) await gate.take();
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // the first chunk may be free (an idle bucket holds one chunk), the rest is paced at 50/s
  assert.ok(seconds >= 1.5, `took ${seconds.toFixed(2)} s`);
  assert.ok(seconds < 4, `took ${seconds.toFixed(2)} s`);
});

test('rate 0 means unlimited: no database round trip at all', async () => {
  const gate = new RateGate(db, 0);
  const t0 = performance.now();
  for (let i = 0; i < 10_000; i++) await gate.take();
  assert.ok(performance.now() - t0 < 500);
});
