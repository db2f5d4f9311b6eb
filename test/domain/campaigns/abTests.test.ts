// A/B tests in the domain: the two-proportion confidence note, the leader by human opens or clicks, the
// seeded split (even, reproducible, the rest held), variant content through the one content function,
// and the automatic winner decided once even when two instances ask at the same time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../../src/config.ts';
import * as abTests from '../../../src/domain/campaigns/abTests.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { Validation } from '../../../src/domain/errors.ts';
import { migratedDb } from '../../support/db.ts';
import { groupOf, newAccount } from '../../support/domain.ts';

const config = {
  ...loadConfig({ MAILGROVE_SECRET: 'domain-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'domain-secret',
};
const { db } = await migratedDb();

test('A/B › two-proportion test: 6/10 against 1/10 is ~99 % sure, equal rates 50 %, nothing sent 50 %', () => {
  const sure = abTests.twoProportion({ hits: 6, n: 10 }, { hits: 1, n: 10 });
  assert.ok(sure.z > 2.3 && sure.z < 2.4, String(sure.z));
  assert.ok(sure.confidence > 0.99 && sure.confidence < 0.995, String(sure.confidence));
  assert.equal(abTests.twoProportion({ hits: 3, n: 10 }, { hits: 3, n: 10 }).confidence, 0.5);
  assert.equal(abTests.twoProportion({ hits: 0, n: 0 }, { hits: 0, n: 0 }).confidence, 0.5);
  const s = (sent: number, human_opens: number, clicks: number) => ({
    sent,
    human_opens,
    clicks,
    unsubscribes: 0,
    bounces: 0,
  });
  assert.equal(abTests.leader([s(10, 1, 5), s(10, 6, 0)], 'opens'), 1);
  assert.equal(abTests.leader([s(10, 1, 5), s(10, 6, 0)], 'clicks'), 0);
  assert.equal(abTests.leader([s(10, 2, 0), s(10, 2, 0)], 'opens'), 0, 'a tie goes to the earlier variant');
  assert.equal(abTests.leader([s(0, 0, 0), s(5, 1, 0)], 'opens'), 1, 'rates, not counts');
});

test('A/B › the seeded split is even and the same for the same seed; the rest waits; the automatic winner is decided once', async () => {
  const acc = await newAccount(db, 'AB');
  const emails = Array.from({ length: 50 }, (_, i) => `s${i}@ab.test`);
  const groupId = await groupOf(db, acc, emails);
  const ab_test = {
    variants: [
      { subject: 'A' },
      { subject: 'B' },
      {
        content_format: 'mjml' as const,
        content_source:
          '<mjml><mj-body><mj-section><mj-column><mj-text>C</mj-text></mj-column></mj-section></mj-body></mjml>',
      },
    ],
    test_percent: 30,
    winner_by: 'opens' as const,
    wait_hours: 1,
  };
  const splits: string[] = [];
  for (let round = 0; round < 2; round++) {
    const c = await campaigns.create(db, acc, {
      name: `AB ${round}`,
      subject: 'Base',
      content_html: '<p>Base</p>',
      group_ids: [groupId],
      ab_test,
    });
    const row = await campaigns.find(db, acc, c.id);
    assert.match(row.ab_test!.variants[2]!.content_html!, /C/, 'MJML variant compiled through the content function');
    // the same seed for both rounds, as a duplicate of the test would keep
    if (round === 1)
      await sql`update campaigns set ab_test = jsonb_set(ab_test, '{seed}', ${JSON.stringify((globalThis as any).seed)}::jsonb) where id = ${c.id}::uuid`.execute(
        db,
      );
    else (globalThis as any).seed = row.ab_test!.seed;
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const rows = await db
      .selectFrom('campaign_recipients')
      .select(['email', 'variant', 'ab_rest', 'next_attempt_at'])
      .where('campaign_id', '=', c.id)
      .orderBy('email')
      .execute();
    const perVariant = [0, 1, 2].map((v) => rows.filter((r) => r.variant === v && !r.ab_rest).length);
    assert.deepEqual(perVariant, [5, 5, 5], '30 % of 50 = 15, split evenly');
    const rest = rows.filter((r) => r.ab_rest);
    assert.equal(rest.length, 35);
    assert.ok(
      rest.every(
        (r) =>
          (r.variant === null && new Date(r.next_attempt_at!).getTime() === Infinity) ||
          String(r.next_attempt_at) === 'Infinity',
      ),
    );
    splits.push(rows.map((r) => `${r.email}:${r.variant}`).join(','));
    if (round === 1) {
      // two instances ask at once when the wait is over: one decides, the other finds nothing
      await sql`update campaigns set ab_decide_at = now() - interval '1 second' where id = ${c.id}::uuid`.execute(db);
      const [a, b] = await Promise.all([abTests.decideDue(db), abTests.decideDue(db)]);
      assert.deepEqual([...a, ...b], [c.id]);
      const after = await db
        .selectFrom('campaign_recipients')
        .select(['variant', 'next_attempt_at'])
        .where('campaign_id', '=', c.id)
        .where('ab_rest', '=', true)
        .execute();
      assert.ok(
        after.every((r) => r.variant === 0 && r.next_attempt_at === null),
        'no opens: the tie goes to A, released now',
      );
      assert.deepEqual(await abTests.decideDue(db), [], 'decided once');
      await assert.rejects(abTests.pickWinner(db, acc, c.id, { variant: 1 }), /already chosen/);
    }
  }
  assert.equal(splits[0], splits[1], 'the same seed splits the same audience the same way');
  await assert.rejects(
    abTests.pickWinner(db, acc, '00000000-0000-4000-8000-000000000000', { variant: 0 }),
    /not found/,
  );
  await assert.rejects(
    abTests.pickWinner(db, acc, '00000000-0000-4000-8000-000000000000', { variant: -1 }),
    (e) => e instanceof Validation,
  );
});
