// A campaign's stats are kept by the database (campaign_counts, migration 20261127_1000): they must equal
// what an aggregate over the ledger counts, the way automation stats count their rows (engagementCounts),
// after every kind of ledger write, concurrent ones included, and the campaign's rows must go with it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { HUMAN_OPENED, engagementCounts } from '../../../src/domain/campaigns/queries.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'counts-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'counts-secret',
};
const { db } = await migratedDb();

/** The stats as one aggregate over the ledger would count them: the oracle. */
async function counted(accountId: string, campaignId: string) {
  const row = await db
    .selectFrom('campaign_recipients')
    .select([
      sql<number>`count(*)::int`.as('recipients'),
      sql<number>`(count(*) filter (where state = 'sent'))::int`.as('sent'),
      sql<number>`(count(*) filter (where state = 'failed'))::int`.as('failed'),
      sql<number>`(count(*) filter (where state = 'skipped'))::int`.as('skipped'),
      sql<number>`(count(*) filter (where state = 'interrupted'))::int`.as('interrupted'),
      sql<number>`(count(*) filter (where state in ('queued', 'sending')))::int`.as('pending'),
      ...engagementCounts(),
      sql<number>`coalesce(sum(machine_opens), 0)::int`.as('machine_opens'),
      sql<number>`(count(*) filter (where ${HUMAN_OPENED}))::int`.as('unique_human_opens'),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
  return row;
}

async function kept(accountId: string, campaignId: string) {
  return (await campaigns.get(db, accountId, campaignId)).stats;
}

async function agree(accountId: string, campaignId: string, what: string) {
  const stats = await kept(accountId, campaignId);
  const oracle = await counted(accountId, campaignId);
  for (const [k, v] of Object.entries(oracle)) assert.equal((stats as any)[k], v, `${what}: ${k}`);
  return stats;
}

async function sendingCampaign(size: number) {
  const acc = (await accounts.create(db, { name: 'Counts' }, 100_000)).id;
  const g = await groups.create(db, acc, { name: `G${randomUUID()}` });
  const ids: string[] = [];
  for (let i = 0; i < size; i++)
    ids.push((await subscribers.create(db, acc, { email: `c${i}-${randomUUID()}@x.test`, group_ids: [g.id] })).id);
  const c = await campaigns.create(db, acc, {
    name: 'Counted',
    subject: 'Hi',
    content_html: '<p>Hi</p>',
    group_ids: [g.id],
  });
  await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
  const ledger = await db
    .selectFrom('campaign_recipients')
    .select('id')
    .where('campaign_id', '=', c.id)
    .orderBy('id')
    .execute();
  return { acc, campaignId: c.id, subscriberIds: ids, rows: ledger.map((r) => Number(r.id)) };
}

describe('Kept campaign stats', () => {
  test('equal the ledger after the freeze and after every kind of ledger write', async () => {
    const { acc, campaignId, subscriberIds, rows } = await sendingCampaign(12);
    const frozen = await agree(acc, campaignId, 'frozen');
    assert.equal(frozen.recipients, 12);
    assert.equal(frozen.pending, 12);

    const set = (ids: number[], values: string) =>
      sql`update campaign_recipients set ${sql.raw(values)} where id = any(${ids}::bigint[])`.execute(db);
    // a mark changes no count: the row is pending either way
    await set(rows.slice(0, 6), `state = 'sending', attempts = attempts + 1`);
    await agree(acc, campaignId, 'marked');
    await set(rows.slice(0, 4), `state = 'sent', sent_at = now()`);
    await set([rows[4]!], `state = 'failed', failure = 'bounced', bounced_at = now()`);
    await set([rows[5]!], `state = 'interrupted'`);
    await set([rows[6]!], `state = 'skipped'`);
    await agree(acc, campaignId, 'outcomes');
    // engagement: pixel loads (one a proxy's), a click without the pixel, a repeat open, feedback
    await set([rows[0]!], `opens = opens + 1, opened_at = now()`);
    await set([rows[0]!], `opens = opens + 1`);
    await set([rows[1]!], `opens = 1, machine_opens = 1, opened_at = now()`);
    await set([rows[2]!], `clicks = 2, clicked_at = now(), opened_at = now()`);
    await set([rows[3]!], `unsubscribed_at = now(), complained_at = now(), soft_bounces = 2`);
    const engaged = await agree(acc, campaignId, 'engagement');
    assert.deepEqual(
      [engaged.sent, engaged.opens, engaged.unique_opens, engaged.clicks, engaged.unique_human_opens],
      [4, 4, 3, 2, 2],
    );
    // one statement over several rows of different states, and a no-op update
    await set(rows, `soft_bounces = soft_bounces + 1`);
    await set(rows, `last_error = last_error`);
    await agree(acc, campaignId, 'bulk');
    // a subscriber deleted takes their ledger row with them
    await subscribers.remove(db, acc, subscriberIds[0]!);
    const after = await agree(acc, campaignId, 'subscriber deleted');
    assert.equal(after.recipients, 11);
  });

  test('stay exact under concurrent writers, and a compaction keeps them', async () => {
    const { acc, campaignId, rows } = await sendingCampaign(30);
    // each row written by its own transaction, all at once (on PostgreSQL, on as many connections)
    await Promise.all(
      rows.map((id, i) =>
        db.transaction().execute(async (trx) => {
          await sql`update campaign_recipients set state = ${i % 3 === 0 ? 'failed' : 'sent'} where id = ${id}`.execute(
            trx,
          );
          await sql`update campaign_recipients set opens = opens + 1, opened_at = now() where id = ${id}`.execute(trx);
        }),
      ),
    );
    const deltas = async () =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from campaign_counts where campaign_id = ${campaignId}::uuid`.execute(db)
        ).rows[0]!.n,
      );
    assert.ok((await deltas()) > 30, 'one delta row per writing statement');
    const before = await agree(acc, campaignId, 'concurrent');
    assert.deepEqual([before.sent, before.failed, before.unique_opens], [20, 10, 30]);
    // past 256 deltas a read folds them: push it over with writes that each change a count
    for (let i = 0; i < 240; i++)
      await sql`update campaign_recipients set opens = opens + 1 where id = ${rows[i % rows.length]}`.execute(db);
    await kept(acc, campaignId); // this read compacts
    assert.equal(await deltas(), 1);
    await agree(acc, campaignId, 'compacted');
    const ledger = await sql<
      Record<string, unknown>
    >`select * from campaign_counts_of_ledger(${campaignId}::uuid)`.execute(db);
    const one = await sql<
      Record<string, unknown>
    >`select * from campaign_counts where campaign_id = ${campaignId}::uuid`.execute(db);
    assert.deepEqual(one.rows, ledger.rows, 'the rebuild function counts as the triggers do');
  });

  test("go with the campaign, and another account's campaign stays its own", async () => {
    const mine = await sendingCampaign(2);
    const theirs = await sendingCampaign(3);
    await sql`update campaign_recipients set state = 'sent' where campaign_id = ${mine.campaignId}::uuid`.execute(db);
    await sql`update campaigns set status = 'sent' where id = ${mine.campaignId}::uuid`.execute(db);
    await campaigns.remove(db, mine.acc, mine.campaignId);
    const left = await sql<{ n: number }>`select count(*)::int as n from campaign_counts
      where campaign_id = ${mine.campaignId}::uuid`.execute(db);
    assert.equal(Number(left.rows[0]!.n), 0);
    await agree(theirs.acc, theirs.campaignId, 'other account');
    await assert.rejects(campaigns.get(db, mine.acc, theirs.campaignId));
    // an account deleted takes its campaigns' counts with it (the cascade reaches the ledger first or not)
    await sql`delete from accounts where id = ${theirs.acc}::uuid`.execute(db);
    const gone = await sql<{ n: number }>`select count(*)::int as n from campaign_counts
      where account_id = ${theirs.acc}::uuid`.execute(db);
    assert.equal(Number(gone.rows[0]!.n), 0);
  });
});
