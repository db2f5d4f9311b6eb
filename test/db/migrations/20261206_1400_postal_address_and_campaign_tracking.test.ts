// The postal-address and campaign-tracking migration: accounts gain postal_address (none yet) and an empty
// blocking_checks; campaigns made before keep what their account tracked (off stays off, on stays on).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrate } from '../../../src/db/migrate.ts';
import { migratedDb } from '../../support/db.ts';

const MIGRATION = '20261206_1400_postal_address_and_campaign_tracking';

describe('Migration › postal address, blocking checks, tracking per campaign', () => {
  test("existing campaigns take their account's tracking; accounts have no address and no extra blocking check", async (t) => {
    const { db } = await migratedDb(t);
    // the shape the tables had before
    await sql`alter table campaigns drop column track_opens, drop column track_clicks`.execute(db);
    await sql`alter table accounts drop column postal_address, drop column blocking_checks`.execute(db);
    await db
      .deleteFrom('schema_migrations' as any)
      .where('name', '=', MIGRATION)
      .execute();
    const ids: Record<string, string> = {};
    for (const [name, tracking] of [
      ['tracked', true],
      ['untracked', false],
    ] as const) {
      const a = await sql<{ id: string }>`
        insert into accounts (name, subscriber_limit, tracking_enabled) values (${name}, 10, ${tracking}) returning id`.execute(
        db,
      );
      const c = await sql<{ id: string }>`
        insert into campaigns (account_id, name) values (${a.rows[0]!.id}, ${name}) returning id`.execute(db);
      ids[name] = c.rows[0]!.id;
    }

    assert.deepEqual(await migrate(db), [MIGRATION]);

    const campaigns = await db
      .selectFrom('campaigns')
      .select(['id', 'track_opens', 'track_clicks'])
      .where('id', 'in', Object.values(ids))
      .execute();
    const of = (id: string) => campaigns.find((c) => c.id === id)!;
    assert.deepEqual([of(ids.tracked!).track_opens, of(ids.tracked!).track_clicks], [true, true]);
    assert.deepEqual([of(ids.untracked!).track_opens, of(ids.untracked!).track_clicks], [false, false]);
    const accounts = await db.selectFrom('accounts').select(['postal_address', 'blocking_checks']).execute();
    for (const a of accounts) assert.deepEqual([a.postal_address, a.blocking_checks], [null, []]);
  });
});
