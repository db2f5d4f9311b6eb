// SQL of the evidence behind a campaign's figures: its ledger by recipient domain, and who clicked each of
// its links (campaign_link_clicks). accountId always.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { HUMAN_OPENED } from './queries.ts';

const DOMAIN = sql<string>`lower(split_part(email, '@', 2))`;

/** The campaign's ledger counted per recipient domain. */
export function byDomain(db: Db, accountId: string, campaignId: string) {
  return db
    .selectFrom('campaign_recipients')
    .select([
      DOMAIN.as('domain'),
      sql<number>`count(*)::int`.as('recipients'),
      sql<number>`(count(*) filter (where state = 'sent'))::int`.as('sent'),
      // put back in the queue after a 4xx: claimed more than once, or waiting for its next attempt
      sql<number>`(count(*) filter (where attempts > 1 or (state = 'queued' and next_attempt_at is not null)))::int`.as(
        'deferred',
      ),
      sql<number>`(count(*) filter (where state = 'failed'))::int`.as('failed'),
      sql<number>`count(bounced_at)::int`.as('bounced'),
      sql<number>`count(opened_at)::int`.as('opened'),
      sql<number>`(count(*) filter (where ${HUMAN_OPENED}))::int`.as('human_opened'),
      sql<number>`count(clicked_at)::int`.as('clicked'),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .groupBy(sql`1`)
    .execute();
}

export function linkExists(db: Db, campaignId: string, linkIdx: number) {
  return db
    .selectFrom('campaign_links')
    .select('idx')
    .where('campaign_id', '=', campaignId)
    .where('idx', '=', linkIdx)
    .executeTakeFirst();
}

/** One page of the subscribers who clicked link `linkIdx`, first clicker first. */
export async function linkClickers(
  db: Db,
  accountId: string,
  campaignId: string,
  linkIdx: number,
  limit: number,
  offset: number,
) {
  const base = db
    .selectFrom('campaign_link_clicks as k')
    .where('k.account_id', '=', accountId)
    .where('k.campaign_id', '=', campaignId)
    .where('k.link_idx', '=', linkIdx);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('subscribers as s', 's.id', 'k.subscriber_id')
      .select(['s.id as subscriber_id', 's.email', 'k.first_clicked_at', 'k.last_clicked_at', 'k.clicks'])
      .orderBy('k.first_clicked_at')
      .orderBy('k.subscriber_id')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: total.n };
}
