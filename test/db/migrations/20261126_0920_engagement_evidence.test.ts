// Migration 20261126_0920: clicks recorded before campaign_link_clicks existed are copied in from the
// email.clicked events, one row per (campaign, link, subscriber) with the count and first/last time; an
// event whose URL is not one of the campaign's links, or of another account, is left out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sql } from 'kysely';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { migratedDb } from '../../support/db.ts';

const MIGRATION = readFileSync(
  new URL('../../../src/db/migrations/20261126_0920_engagement_evidence.sql', import.meta.url),
  'utf8',
);
const BACKFILL = MIGRATION.slice(MIGRATION.indexOf('insert into campaign_link_clicks'));

test('the backfill turns email.clicked events into per-link, per-subscriber click rows', async (t) => {
  const { db } = await migratedDb(t);
  const account = await accounts.create(db, { name: 'Backfill' }, 1000);
  const other = await accounts.create(db, { name: 'Other' }, 1000);
  const campaign = await db
    .insertInto('campaigns')
    .values({ account_id: account.id, name: 'Old' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const [ada, bob] = await db
    .insertInto('subscribers')
    .values(['ada@old.test', 'bob@old.test'].map((email) => ({ account_id: account.id, email })))
    .returning('id')
    .execute();
  const stranger = await db
    .insertInto('subscribers')
    .values({ account_id: other.id, email: 'eve@old.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('campaign_links')
    .values([
      { campaign_id: campaign.id, idx: 0, url: 'https://example.org/a' },
      { campaign_id: campaign.id, idx: 1, url: 'https://example.org/b' },
    ])
    .execute();
  const clicked = (accountId: string, subscriberId: string, url: string, at: string) => ({
    account_id: accountId,
    type: 'email.clicked',
    subscriber_id: subscriberId,
    data: JSON.stringify({ campaign_id: campaign.id, url }),
    created_at: new Date(at),
  });
  await db
    .insertInto('events')
    .values([
      clicked(account.id, ada!.id, 'https://example.org/b', '2026-11-01T10:00:00Z'),
      clicked(account.id, ada!.id, 'https://example.org/b', '2026-11-01T12:00:00Z'),
      clicked(account.id, bob!.id, 'https://example.org/a', '2026-11-02T09:00:00Z'),
      clicked(account.id, bob!.id, 'https://example.org/gone', '2026-11-02T09:00:00Z'),
      clicked(other.id, stranger.id, 'https://example.org/a', '2026-11-02T09:00:00Z'),
    ])
    .execute();

  await sql.raw(BACKFILL).execute(db);
  await sql.raw(BACKFILL).execute(db); // on conflict do nothing: running it again changes nothing

  const rows = await db
    .selectFrom('campaign_link_clicks')
    .select(['link_idx', 'subscriber_id', 'account_id', 'clicks', 'first_clicked_at', 'last_clicked_at'])
    .orderBy('link_idx')
    .execute();
  assert.deepEqual(
    rows.map((r) => [r.link_idx, r.subscriber_id, r.account_id, r.clicks]),
    [
      [0, bob!.id, account.id, 1],
      [1, ada!.id, account.id, 2],
    ],
  );
  assert.deepEqual(
    [rows[1]!.first_clicked_at.toISOString(), rows[1]!.last_clicked_at.toISOString()],
    ['2026-11-01T10:00:00.000Z', '2026-11-01T12:00:00.000Z'],
  );
});
