// Local-time delivery in the domain: a campaign scheduled at 09:00 local to subscribers in three zones
// (their own, and the account's for one without) starts when the first zone on Earth reaches the hour and
// makes each ledger row due at 09:00 in its zone; with the clock scaled (an hour to a quarter second) the
// claim hands each group out at its own hour, never earlier. Hostile schedule input is a Validation; a
// campaign with an A/B test is refused (Unprocessable) and stays a draft.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../../src/config.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { claim } from '../../../src/domain/delivery/ledgerQueries.ts';
import { Unprocessable, Validation } from '../../../src/domain/errors.ts';
import { WITH_AB_TEST } from '../../../src/domain/campaigns/localTime.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';
import { newAccount } from '../../support/domain.ts';

const config = {
  ...loadConfig({ MAILGROVE_SECRET: 'domain-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'domain-secret',
};
const { db } = await migratedDb();
const groupOf = (account_id: string, name: string) =>
  db.insertInto('groups').values({ account_id, name }).returning('id').executeTakeFirstOrThrow();

test('Local time › 09:00 in Tokyo, Berlin and (the account’s) New York: each row due at its own hour, claimed in turn', async () => {
  const acc = await newAccount(db, 'Local', 'America/New_York');
  const group = await groupOf(acc, 'Zones');
  const zones = { 'tokyo@z.test': 'Asia/Tokyo', 'berlin@z.test': 'Europe/Berlin', 'ny@z.test': null };
  for (const [email, time_zone] of Object.entries(zones))
    await subscribers.create(db, acc, { email, group_ids: [group.id], ...(time_zone && { time_zone }) });
  await assert.rejects(
    subscribers.create(db, acc, { email: 'bad@z.test', time_zone: 'Mars/Olympus' }),
    (e) => e instanceof Validation && /time_zone/.test(e.message),
  );
  const c = await campaigns.create(db, acc, {
    name: 'Morning',
    subject: 'Hi',
    content_html: '<p>Hi</p>',
    group_ids: [group.id],
  });
  const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  for (const bad of [
    { local_time: '9am', date },
    { local_time: '25:00', date },
    { local_time: '09:00' },
    { local_time: '09:00', date: '2020-01-01' },
  ])
    await assert.rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'local_time', ...bad }),
      (e) => e instanceof Validation,
      JSON.stringify(bad),
    );
  const scheduled = await campaigns.schedule(db, config, acc, c.id, {
    delivery: 'local_time',
    local_time: '09:00',
    date,
  });
  assert.equal(scheduled.status, 'scheduled');
  assert.deepEqual(scheduled.local_time, { local_time: '09:00', date, local_time_passed: 'send' });
  assert.equal(
    new Date(scheduled.scheduled_at!).toISOString(),
    new Date(`${date}T09:00:00+14:00`).toISOString(),
    'starts when UTC+14 reaches 09:00',
  );

  // the start is due now (a scaled clock for the scheduler), then the rows' instants are checked
  await sql`update campaigns set scheduled_at = now() where id = ${c.id}::uuid`.execute(db);
  assert.deepEqual(await campaigns.startDue(db, config), [c.id]);
  const due = await db
    .selectFrom('campaign_recipients')
    .select(['email', 'next_attempt_at'])
    .where('campaign_id', '=', c.id)
    .execute();
  const at = Object.fromEntries(due.map((r) => [r.email, new Date(r.next_attempt_at!).toISOString()]));
  assert.deepEqual(at, {
    'tokyo@z.test': new Date(`${date}T09:00:00+09:00`).toISOString(),
    'berlin@z.test': new Date(`${date}T09:00:00+01:00`).toISOString(),
    'ny@z.test': new Date(`${date}T09:00:00-05:00`).toISOString(),
  });
  assert.equal((await campaigns.get(db, acc, c.id)).delivery, 'local_time');

  // scaled clock: an hour becomes 250 ms, Tokyo's 09:00 is now
  await sql`
    update campaign_recipients set next_attempt_at = now() + (next_attempt_at - ${new Date(`${date}T00:00:00Z`)}::timestamptz) / 14400
    where campaign_id = ${c.id}::uuid`.execute(db);
  const worker = randomUUID();
  const claimed: string[][] = [];
  const started = Date.now();
  for (const untilMs of [100, 2_150, 3_650]) {
    await new Promise((r) => setTimeout(r, Math.max(0, started + untilMs - Date.now())));
    const got = await claim(db, c.id, worker, 10);
    claimed.push(got.rows.map((r) => r.email));
    if (got.id) await db.deleteFrom('send_claims').where('id', '=', got.id).execute();
    await db
      .updateTable('campaign_recipients')
      .set({ state: 'sent' })
      .where('id', 'in', got.rows.length ? got.rows.map((r) => r.id) : [0])
      .execute();
  }
  assert.deepEqual(claimed, [['tokyo@z.test'], ['berlin@z.test'], ['ny@z.test']], 'each zone at its own (scaled) hour');
});

test('Local time › an A/B campaign is refused with a clear reason and stays a draft; sent at a set time it is fine', async () => {
  const acc = await newAccount(db, 'Local AB', 'Europe/Paris');
  const group = await groupOf(acc, 'AB');
  await subscribers.create(db, acc, { email: 'ab@z.test', group_ids: [group.id] });
  const ab = { variants: [{}, { subject: 'B' }], test_percent: 20, winner_by: 'opens', wait_hours: 4 };
  const c = await campaigns.create(db, acc, {
    name: 'AB morning',
    subject: 'A',
    content_html: '<p>Hi</p>',
    group_ids: [group.id],
    ab_test: ab,
  });
  const date = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  await assert.rejects(
    campaigns.schedule(db, config, acc, c.id, { delivery: 'local_time', local_time: '09:00', date }),
    (e) => e instanceof Unprocessable && e.message === WITH_AB_TEST && /A\/B test/.test(e.message),
  );
  assert.equal((await campaigns.get(db, acc, c.id)).status, 'draft');
  const later = await campaigns.schedule(db, config, acc, c.id, {
    delivery: 'scheduled',
    scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
  assert.deepEqual([later.status, later.delivery], ['scheduled', 'scheduled']);
});
