// Automation lists come back as one Page (items, page, per_page, total); runs are started by the trigger
// scan and canceled, and counted as such, when their automation is disabled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as automations from '../../../src/domain/automations/automations.ts';
import * as triggers from '../../../src/domain/automations/triggers.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const waitADay = {
  name: 'Wait',
  trigger: { type: 'subscriber_created' as const },
  steps: [{ type: 'delay' as const, amount: 1, unit: 'days' as const }],
};

test('list pages newest first and clamps per_page', async () => {
  const accountId = (await accounts.create(db, { name: 'List' }, 100)).id;
  const made = [];
  for (const name of ['a', 'b', 'c'])
    made.push(await automations.create(db, accountId, { ...waitADay, name, enabled: false }));
  const first = await automations.list(db, accountId, { per_page: 2 });
  assert.deepEqual(
    { ...first, items: first.items.map((a) => a.name) },
    { items: ['c', 'b'], page: 1, per_page: 2, total: 3 },
  );
  const second = await automations.list(db, accountId, { page: 2, per_page: 2 });
  assert.deepEqual(
    second.items.map((a) => a.id),
    [made[0]!.id],
  );
  assert.equal((await automations.list(db, accountId, { per_page: 500 })).per_page, 100);
});

test('activity pages the runs the trigger scan started; disabling cancels them and counts them', async () => {
  const accountId = (await accounts.create(db, { name: 'Runs' }, 100)).id;
  const automation = await automations.create(db, accountId, waitADay);
  for (const email of ['one@example.com', 'two@example.com', 'three@example.com'])
    await subscribers.create(db, accountId, { email });
  const feed = triggers.eventFeed();
  let started = 0;
  for (;;) {
    const round = await triggers.scan(db, feed);
    started += round.started;
    if (round.handled === 0) break;
  }
  assert.equal(started, 3);

  const page = await automations.activity(db, accountId, automation.id, { per_page: 2 });
  assert.deepEqual({ ...page, items: page.items.length }, { items: 2, page: 1, per_page: 2, total: 3 });
  assert.equal(page.items[0]!.status, 'active');
  assert.deepEqual(page.items[0]!.current_step, { path: '0', type: 'delay' });

  await automations.setEnabled(db, accountId, automation.id, false);
  const canceled = await automations.activity(db, accountId, automation.id, { status: 'canceled' });
  assert.equal(canceled.total, 3);
  assert.ok(canceled.items.every((r) => r.current_step === null && r.history.at(-1)?.result === 'canceled'));
  assert.equal((await automations.activity(db, accountId, automation.id, { status: 'active' })).total, 0);
  const { stats } = await automations.get(db, accountId, automation.id);
  assert.deepEqual([stats.started, stats.active, stats.canceled], [3, 0, 3]);
});
