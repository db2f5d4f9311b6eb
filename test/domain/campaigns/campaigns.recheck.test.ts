// A scheduled campaign is checked again when its time comes (campaigns.startDue): one that passed when it
// was scheduled but fails a blocking check now (here: the instance turned SEND_CHECKS to block, and the
// account has no verified domain nor postal address) does not go; it returns to draft, the failures are
// what GET /campaigns/{id}/checks shows, and a campaign.refused event names them. One that passes starts.
// Scheduling renders the checks before its transaction and refuses a row changed meanwhile.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import * as checks from '../../../src/domain/campaigns/checks.ts';
import { migratedDb } from '../../support/db.ts';
import { groupOf, newAccount } from '../../support/domain.ts';

const base = { ...loadConfig({ MAILGROVE_SECRET: 's', LOG_LEVEL: 'silent' }, {}), secret: 's' };
const warn: Config = { ...base, SEND_CHECKS: 'warn' };
const block: Config = { ...base, SEND_CHECKS: 'block' };
const { db } = await migratedDb();

async function scheduledSoon(acc: string) {
  const groupId = await groupOf(db, acc, [`a-${randomUUID()}@x.test`]);
  const c = await campaigns.create(db, acc, {
    name: 'Soon',
    subject: 'Hello',
    from_email: 'news@unverified.test',
    content_html: '<p>Hi <a href="{{ unsubscribe_url }}">unsubscribe</a></p>',
    group_ids: [groupId],
  });
  await campaigns.schedule(db, warn, acc, c.id, {
    delivery: 'scheduled',
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  // its time has come (the hour passes at once)
  await db
    .updateTable('campaigns')
    .set({ scheduled_at: new Date(Date.now() - 1000) })
    .where('id', '=', c.id)
    .execute();
  return c.id;
}

test('a scheduled campaign that fails a blocking check when due goes back to draft, with an event', async () => {
  const acc = await newAccount(db, 'Recheck');
  const id = await scheduledSoon(acc);
  assert.deepEqual(await campaigns.startDue(db, block), [], 'not started');
  const c = await campaigns.get(db, acc, id);
  assert.equal(c.status, 'draft');
  assert.equal(c.scheduled_at, null);
  const now = await checks.ofCampaign(db, block, acc, id);
  assert.equal(now.ok, false);
  const failed = now.checks.filter((x) => !x.ok && x.level === 'block').map((x) => x.id);
  assert.ok(failed.includes('from_domain') && failed.includes('postal_address'), JSON.stringify(failed));
  const events = await db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('account_id', '=', acc)
    .where('type', '=', 'campaign.refused')
    .execute();
  assert.equal(events.length, 1);
  const data = events[0]!.data as { campaign: { id: string }; checks: { id: string; ok: boolean }[] };
  assert.equal(data.campaign.id, id);
  assert.deepEqual(
    data.checks.filter((x) => failed.includes(x.id as never)).map((x) => x.id),
    failed,
    'the event names the blocking failures',
  );
  assert.deepEqual(await campaigns.startDue(db, block), [], 'a draft is not due');
});

test('one that passes when due starts', async () => {
  const acc = await newAccount(db, 'Recheck ok');
  const id = await scheduledSoon(acc);
  assert.ok((await campaigns.startDue(db, warn)).includes(id));
  assert.equal((await campaigns.get(db, acc, id)).status, 'sending');
});
