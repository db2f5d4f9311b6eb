// Warm-up of a sending domain, without HTTP: the cap schedule, which day of a plan it is (time zones, the
// test time scale), claims limited by the day's cap and resumed the next day, plans matched to the sender's
// domain case-insensitively and only within their account, and the plans' own validation and scoping.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import * as sendSteps from '../../../src/domain/campaigns/sending.ts';
import * as warmup from '../../../src/domain/campaigns/warmup.ts';
import { Conflict, NotFound, Validation } from '../../../src/domain/errors.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'warmup-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'warmup-secret',
};
const { db } = await migratedDb();
const DAY = 86_400_000;
const MISSING = '00000000-0000-4000-8000-000000000000';

/** The config with a clock that reads `at` (moved by the test). */
function clockAt(at: Date) {
  const clock = { ...config, at, now: () => clock.at };
  return clock;
}

async function account(timezone = 'UTC') {
  const id = (await accounts.create(db, { name: 'Warm-up' }, 100_000)).id;
  await db.updateTable('accounts').set({ timezone }).where('id', '=', id).execute();
  return id;
}

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

describe('The cap schedule', () => {
  const plan = { first_day_cap: 200, growth: 2, days: 5 };

  test('day 1: 200, day 2: 400, … day 5: 3200, then no cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 30].map((d) => warmup.capOn(plan, d)),
      [200, 400, 800, 1600, 3200, null, null],
    );
  });

  test('before the start date the first day’s cap holds; fractional growth rounds down; huge caps stay in range', () => {
    assert.equal(warmup.capOn(plan, 0), 200);
    assert.equal(warmup.capOn(plan, -3), 200);
    assert.deepEqual(
      [1, 2, 3].map((d) => warmup.capOn({ first_day_cap: 100, growth: 1.5, days: 3 }, d)),
      [100, 150, 225],
    );
    assert.equal(warmup.capOn({ first_day_cap: 10_000_000, growth: 10, days: 365 }, 365), 2_000_000_000);
  });

  test('days are calendar days in the account’s time zone, and the next one starts at its midnight', () => {
    const p = { ...plan, start_date: '2026-03-07', created_at: new Date('2026-03-07T05:00:00Z') };
    // 03:00 UTC on 10 March is still 9 March in New York (EDT since 8 March: UTC-4)
    const d = warmup.dayOf(p, 'America/New_York', {
      WARMUP_TIME_SCALE: 1,
      now: () => new Date('2026-03-10T03:00:00Z'),
    });
    assert.deepEqual(d, { index: 3, key: '2026-03-09', ends_at: new Date('2026-03-10T04:00:00Z') });
    const utc = warmup.dayOf(p, 'UTC', { WARMUP_TIME_SCALE: 1, now: () => new Date('2026-03-10T03:00:00Z') });
    assert.deepEqual(utc, { index: 4, key: '2026-03-10', ends_at: new Date('2026-03-11T00:00:00Z') });
    const unknown = warmup.dayOf(p, 'Mars/Olympus', {
      WARMUP_TIME_SCALE: 1,
      now: () => new Date('2026-03-10T03:00:00Z'),
    });
    assert.deepEqual(unknown, utc, 'an unknown zone counts in UTC');
    assert.deepEqual(warmup.midnight('Asia/Kolkata', '2026-06-01'), new Date('2026-05-31T18:30:00Z'));
  });

  test('with WARMUP_TIME_SCALE a day lasts 24 h / scale, counted from the plan’s creation', () => {
    const created = new Date('2026-03-07T13:37:00Z');
    const p = { ...plan, start_date: '2026-03-07', created_at: created };
    const at = (ms: number) => ({ WARMUP_TIME_SCALE: 86_400, now: () => new Date(created.getTime() + ms) });
    assert.deepEqual(warmup.dayOf(p, 'UTC', at(999)), {
      index: 1,
      key: '2026-03-07',
      ends_at: new Date(created.getTime() + 1000),
    });
    assert.deepEqual(warmup.dayOf(p, 'UTC', at(2500)), {
      index: 3,
      key: '2026-03-09',
      ends_at: new Date(created.getTime() + 3000),
    });
  });
});

describe('Claims within the cap', () => {
  test('a campaign larger than the cap gets the cap, waits (not finished), and gets the rest the next day', async () => {
    const acc = await account('Europe/Berlin');
    const clock = clockAt(new Date('2026-11-26T10:00:00Z'));
    await warmup.create(db, clock, acc, { domain: 'Example.COM', first_day_cap: 5, growth: 2, days: 3 });
    const c = await sendingCampaign(acc, 'News@EXAMPLE.com', 12);
    const claim = claimer(c.id);

    assert.equal((await warmup.claimWithin(db, clock, c, 500, claim)).length, 5);
    assert.deepEqual(await warmup.claimWithin(db, clock, c, 500, claim), [], 'the cap is used up today');
    assert.equal(await sendSteps.finishIfDone(db, c.id), false, 'rows waiting for the warm-up keep it sending');
    assert.equal(await sendSteps.campaignStatus(db, c.id), 'sending');

    const held = await warmup.ofCampaign(db, clock, acc, c.id);
    assert.deepEqual(held, {
      domain: 'example.com',
      waiting: 7,
      resumes_at: '2026-11-26T23:00:00.000Z', // midnight in Berlin
      today: { day: 1, cap: 5, used: 5, resets_at: '2026-11-26T23:00:00.000Z' },
    });

    clock.at = new Date('2026-11-26T23:00:00Z');
    assert.equal((await warmup.claimWithin(db, clock, c, 4, claim)).length, 4, 'no more than the lane asks for');
    assert.equal((await warmup.claimWithin(db, clock, c, 500, claim)).length, 3);
    assert.deepEqual(await warmup.claimWithin(db, clock, c, 500, claim), []);
    // day 2 allows 10 and 7 went: what the claims reserved and did not use was given back
    const [plan] = await warmup.list(db, clock, acc);
    assert.deepEqual(plan!.today, { day: 2, cap: 10, used: 7, resets_at: '2026-11-27T23:00:00.000Z' });
    assert.equal(await warmup.ofCampaign(db, clock, acc, c.id), null, 'nothing waits any more');
    assert.equal(await sendSteps.finishIfDone(db, c.id), true);
  });

  test('campaigns of one domain share its cap; another domain and the warm-up’s end are not capped', async () => {
    const acc = await account();
    const clock = clockAt(new Date('2026-11-26T10:00:00Z'));
    await warmup.create(db, clock, acc, { domain: 'shared.example', first_day_cap: 3, growth: 2, days: 1 });
    const a = await sendingCampaign(acc, 'a@shared.example', 2);
    const b = await sendingCampaign(acc, 'b@Shared.Example', 2);
    const other = await sendingCampaign(acc, 'c@other.example', 4);
    assert.equal((await warmup.claimWithin(db, clock, a, 500, claimer(a.id))).length, 2);
    assert.equal((await warmup.claimWithin(db, clock, b, 500, claimer(b.id))).length, 1);
    assert.equal((await warmup.claimWithin(db, clock, other, 500, claimer(other.id))).length, 4);
    clock.at = new Date(clock.at.getTime() + DAY);
    assert.equal((await warmup.claimWithin(db, clock, b, 500, claimer(b.id))).length, 1, 'day 2 is past the plan');
  });

  test('another account’s plan for the same domain never applies', async () => {
    const owner = await account();
    const stranger = await account();
    const clock = clockAt(new Date());
    await warmup.create(db, clock, stranger, { domain: 'brand.example', first_day_cap: 1 });
    const c = await sendingCampaign(owner, 'hello@brand.example', 3);
    assert.equal((await warmup.claimWithin(db, clock, c, 500, claimer(c.id))).length, 3);
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
    assert.equal((await warmup.claimWithin(db, clock, c, 500, claimer(c.id))).length, 2);
  });

  test('a claim that throws gives its reservation back', async () => {
    const acc = await account();
    const clock = clockAt(new Date());
    await warmup.create(db, clock, acc, { domain: 'throws.example', first_day_cap: 5 });
    const c = await sendingCampaign(acc, 'x@throws.example', 3);
    await assert.rejects(
      warmup.claimWithin(db, clock, c, 500, async () => {
        throw new Error('database went away');
      }),
      /database went away/,
    );
    assert.equal((await warmup.list(db, clock, acc))[0]!.today.used, 0);
  });
});

describe('Plans', () => {
  test('create with defaults, list, get, delete; one plan a domain', async () => {
    const acc = await account('Asia/Tokyo');
    const clock = clockAt(new Date('2026-11-26T20:00:00Z')); // 27 November in Tokyo
    const p = await warmup.create(db, clock, acc, { domain: ' @Mail.Example.org ' });
    assert.equal(p.domain, 'mail.example.org');
    assert.equal(p.start_date, '2026-11-27');
    assert.deepEqual(
      { first_day_cap: p.first_day_cap, growth: p.growth, days: p.days, today: p.today },
      {
        first_day_cap: 200,
        growth: 2,
        days: 10,
        today: { day: 1, cap: 200, used: 0, resets_at: '2026-11-27T15:00:00.000Z' },
      },
    );
    assert.deepEqual(await warmup.get(db, clock, acc, p.id), p);
    assert.deepEqual(
      (await warmup.list(db, clock, acc)).map((x) => x.id),
      [p.id],
    );
    await assert.rejects(warmup.create(db, clock, acc, { domain: 'MAIL.example.org' }), Conflict);
    await warmup.remove(db, acc, p.id);
    await assert.rejects(warmup.get(db, clock, acc, p.id), NotFound);
  });

  test('bad input is a Validation naming the field', async () => {
    const acc = await account();
    const clock = clockAt(new Date());
    const bad: [object, string][] = [
      [{}, 'domain'],
      [{ domain: 'not a domain' }, 'domain'],
      [{ domain: 'localhost' }, 'domain'],
      [{ domain: 'x.example', first_day_cap: 0 }, 'first_day_cap'],
      [{ domain: 'x.example', first_day_cap: '200' }, 'first_day_cap'],
      [{ domain: 'x.example', growth: 0.5 }, 'growth'],
      [{ domain: 'x.example', days: 366 }, 'days'],
      [{ domain: 'x.example', days: 2.5 }, 'days'],
      [{ domain: 'x.example', start_date: '2026-02-30' }, 'start_date'],
    ];
    for (const [input, field] of bad)
      await assert.rejects(warmup.create(db, clock, acc, input as warmup.NewPlan), (err: any) => {
        assert.ok(err instanceof Validation, JSON.stringify(input));
        assert.ok(err.fields[field], `${field} in ${JSON.stringify(err.fields)}`);
        return true;
      });
  });

  test('another account’s plan is not found', async () => {
    const owner = await account();
    const stranger = await account();
    const clock = clockAt(new Date());
    const p = await warmup.create(db, clock, owner, { domain: 'mine.example' });
    await assert.rejects(warmup.get(db, clock, stranger, p.id), NotFound);
    await assert.rejects(warmup.remove(db, stranger, p.id), NotFound);
    await assert.rejects(warmup.remove(db, stranger, MISSING), NotFound);
    assert.deepEqual(await warmup.list(db, clock, stranger), []);
    assert.equal((await warmup.get(db, clock, owner, p.id)).domain, 'mine.example');
  });
});
