// Warm-up plans of a sending domain, without HTTP: the cap schedule, which day of a plan it is (time zones,
// the test time scale), and the plans' own validation and scoping. The cap applied at send time is tested
// with delivery/warmup.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as warmup from '../../../src/domain/campaigns/warmup.ts';
import { Conflict, NotFound, Validation } from '../../../src/domain/errors.ts';
import { migratedDb } from '../../support/db.ts';
import { clockAt as clockAtOf, newAccount } from '../../support/domain.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'warmup-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'warmup-secret',
};
const { db } = await migratedDb();
const MISSING = '00000000-0000-4000-8000-000000000000';

const clockAt = (at: Date) => clockAtOf(config, at);
const account = (timezone = 'UTC') => newAccount(db, 'Warm-up', timezone);

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
