// The warm-up cap at send time, without HTTP: claims limited by the day's cap of the campaign's sending
// domain and resumed the next day, the cap shared by the domain's campaigns, plans matched to the sender's
// domain case-insensitively and only within their account, a failed claim giving its reservation back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { campaignStatus } from '../../../src/domain/campaigns/queries.ts';
import * as warmup from '../../../src/domain/campaigns/warmup.ts';
import * as ledger from '../../../src/domain/delivery/ledger.ts';
import * as warmupCap from '../../../src/domain/delivery/warmup.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';
import { clockAt as clockAtOf, newAccount } from '../../support/domain.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'warmup-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'warmup-secret',
};
const { db } = await migratedDb();
const DAY = 86_400_000;

const clockAt = (at: Date) => clockAtOf(config, at);
const account = (timezone = 'UTC') => newAccount(db, 'Warm-up', timezone);

/** A campaign from `from` to `n` new subscribers, started (its ledger frozen, status sending). */
async function sendingCampaign(acc: string, from: string | null, n: number) {
  const g = await groups.create(db, acc, { name: `G${randomUUID()}` });
  for (let i = 0; i < n; i++)
    await subscribers.create(db, acc, { email: `r${i}-${randomUUID()}@x.test`, group_ids: [g.id] });
  const c = await campaigns.create(db, acc, {
    name: 'Warm',
    subject: 's',
    from_email: from,
    content_html: '<p>x</p>',
    group_ids: [g.id],
  });
  await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
  return { id: c.id, account_id: acc };
}

/**
 * A stand-in for the ledger claim: takes up to `limit` of the campaign's queued rows not taken yet and
 * marks them sent, as a worker's batch would end. Keeps the test on the warm-up's side of the claim.
 */
function claimer(campaignId: string) {
  return async (limit: number) => {
    const rows = await db
      .selectFrom('campaign_recipients')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .where('state', '=', 'queued')
      .orderBy('id')
      .limit(limit)
      .execute();
    if (rows.length > 0)
      await db
        .updateTable('campaign_recipients')
        .set({ state: 'sent', sent_at: new Date() })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
    return rows;
  };
}

describe('Claims within the cap', () => {
  test('a campaign larger than the cap gets the cap, waits (not finished), and gets the rest the next day', async () => {
    const acc = await account('Europe/Berlin');
    const clock = clockAt(new Date('2026-11-26T10:00:00Z'));
    await warmup.create(db, clock, acc, { domain: 'Example.COM', first_day_cap: 5, growth: 2, days: 3 });
    const c = await sendingCampaign(acc, 'News@EXAMPLE.com', 12);
    const claim = claimer(c.id);

    assert.equal((await warmupCap.claimWithin(db, clock, c, 500, claim)).length, 5);
    assert.deepEqual(await warmupCap.claimWithin(db, clock, c, 500, claim), [], 'the cap is used up today');
    assert.equal(await ledger.finishIfDone(db, c.id), false, 'rows waiting for the warm-up keep it sending');
    assert.equal(await campaignStatus(db, c.id), 'sending');

    const held = await warmup.ofCampaign(db, clock, acc, c.id);
    assert.deepEqual(held, {
      domain: 'example.com',
      waiting: 7,
      resumes_at: '2026-11-26T23:00:00.000Z', // midnight in Berlin
      today: { day: 1, cap: 5, used: 5, resets_at: '2026-11-26T23:00:00.000Z' },
    });

    clock.at = new Date('2026-11-26T23:00:00Z');
    assert.equal((await warmupCap.claimWithin(db, clock, c, 4, claim)).length, 4, 'no more than the lane asks for');
    assert.equal((await warmupCap.claimWithin(db, clock, c, 500, claim)).length, 3);
    assert.deepEqual(await warmupCap.claimWithin(db, clock, c, 500, claim), []);
    // day 2 allows 10 and 7 went: what the claims reserved and did not use was given back
    const [plan] = await warmup.list(db, clock, acc);
    assert.deepEqual(plan!.today, { day: 2, cap: 10, used: 7, resets_at: '2026-11-27T23:00:00.000Z' });
    assert.equal(await warmup.ofCampaign(db, clock, acc, c.id), null, 'nothing waits any more');
    assert.equal(await ledger.finishIfDone(db, c.id), true);
  });

  test('campaigns of one domain share its cap; another domain and the warm-up’s end are not capped', async () => {
    const acc = await account();
    const clock = clockAt(new Date('2026-11-26T10:00:00Z'));
    await warmup.create(db, clock, acc, { domain: 'shared.example', first_day_cap: 3, growth: 2, days: 1 });
    const a = await sendingCampaign(acc, 'a@shared.example', 2);
    const b = await sendingCampaign(acc, 'b@Shared.Example', 2);
    const other = await sendingCampaign(acc, 'c@other.example', 4);
    assert.equal((await warmupCap.claimWithin(db, clock, a, 500, claimer(a.id))).length, 2);
    assert.equal((await warmupCap.claimWithin(db, clock, b, 500, claimer(b.id))).length, 1);
    assert.equal((await warmupCap.claimWithin(db, clock, other, 500, claimer(other.id))).length, 4);
    clock.at = new Date(clock.at.getTime() + DAY);
    assert.equal((await warmupCap.claimWithin(db, clock, b, 500, claimer(b.id))).length, 1, 'day 2 is past the plan');
  });

  test('another account’s plan for the same domain never applies', async () => {
    const owner = await account();
    const stranger = await account();
    const clock = clockAt(new Date());
    await warmup.create(db, clock, stranger, { domain: 'brand.example', first_day_cap: 1 });
    const c = await sendingCampaign(owner, 'hello@brand.example', 3);
    assert.equal((await warmupCap.claimWithin(db, clock, c, 500, claimer(c.id))).length, 3);
    assert.equal(await warmup.ofCampaign(db, clock, stranger, c.id), null, 'nor does the stranger see the campaign');
  });

  test('a campaign without a from_email is held to the plan of the account’s default sender', async () => {
    const acc = await account();
    await db
      .updateTable('accounts')
      .set({ default_from_email: 'team@default.example' })
      .where('id', '=', acc)
      .execute();
    const clock = clockAt(new Date());
    await warmup.create(db, clock, acc, { domain: 'default.example', first_day_cap: 2 });
    const c = await sendingCampaign(acc, null, 5);
    assert.equal((await warmupCap.claimWithin(db, clock, c, 500, claimer(c.id))).length, 2);
  });

  test('a claim that throws gives its reservation back', async () => {
    const acc = await account();
    const clock = clockAt(new Date());
    await warmup.create(db, clock, acc, { domain: 'throws.example', first_day_cap: 5 });
    const c = await sendingCampaign(acc, 'x@throws.example', 3);
    await assert.rejects(
      warmupCap.claimWithin(db, clock, c, 500, async () => {
        throw new Error('database went away');
      }),
      /database went away/,
    );
    assert.equal((await warmup.list(db, clock, acc))[0]!.today.used, 0);
  });
});
