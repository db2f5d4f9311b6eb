// SQL of what the dashboard shows about campaigns beyond the spec's stats: audience names, send progress,
// opens and clicks per hour and per link (from the event log), per email client and device (the ledger), the recipient export in batches, and the
// account overview (subscriber growth, 30-day bounce and complaint rates). accountId always.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { FILTERS, type RecipientFilter } from './queries.ts';

export async function audienceNames(db: Db, accountId: string, groupIds: string[], segmentIds: string[]) {
  const [groups, segments] = await Promise.all([
    groupIds.length === 0
      ? []
      : db
          .selectFrom('groups')
          .select(['id', 'name'])
          .where('account_id', '=', accountId)
          .where('id', 'in', groupIds)
          .execute(),
    segmentIds.length === 0
      ? []
      : db
          .selectFrom('segments')
          .select(['id', 'name'])
          .where('account_id', '=', accountId)
          .where('id', 'in', segmentIds)
          .execute(),
  ]);
  return new Map([...groups, ...segments].map((r) => [r.id, r.name]));
}

/** The ledger of one campaign by state, and how many went out in the last minute. */
export function progress(db: Db, accountId: string, campaignId: string) {
  return db
    .selectFrom('campaign_recipients')
    .select([
      sql<number>`count(*)::int`.as('total'),
      sql<number>`(count(*) filter (where state = 'queued'))::int`.as('queued'),
      sql<number>`(count(*) filter (where state = 'sending'))::int`.as('sending'),
      sql<number>`(count(*) filter (where state = 'sent'))::int`.as('sent'),
      sql<number>`(count(*) filter (where state = 'failed'))::int`.as('failed'),
      sql<number>`(count(*) filter (where state = 'interrupted'))::int`.as('interrupted'),
      sql<number>`(count(*) filter (where sent_at > now() - interval '1 minute'))::int`.as('per_minute'),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
}

/** The providers whose backoff holds rows of the campaign back now: until when, and how many rows. */
export async function deferredBy(db: Db, accountId: string, campaignId: string) {
  const rows = await db
    .selectFrom('campaign_recipients')
    .select([
      sql<string>`deferred_by`.as('provider'),
      sql<Date>`max(next_attempt_at)`.as('until'),
      sql<number>`count(*)::int`.as('recipients'),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .where('state', '=', 'queued')
    .where('deferred_by', 'is not', null)
    .where('next_attempt_at', '>', sql<Date>`now()`)
    .groupBy('deferred_by')
    .orderBy('deferred_by')
    .execute();
  return rows.map((r) => ({ provider: r.provider, until: new Date(r.until).toISOString(), recipients: r.recipients }));
}

// email.opened / email.clicked carry the campaign id in data; the partial expression index
// events_campaign_engagement answers these
const OF_CAMPAIGN = (campaignId: string) => sql<boolean>`(data ->> 'campaign_id') = ${campaignId}`;

export function timeline(db: Db, accountId: string, campaignId: string) {
  return db
    .selectFrom('events')
    .select([
      sql<Date>`date_trunc('hour', created_at)`.as('at'),
      sql<number>`(count(*) filter (where type = 'email.opened'))::int`.as('opens'),
      sql<number>`(count(*) filter (where type = 'email.clicked'))::int`.as('clicks'),
    ])
    .where('account_id', '=', accountId)
    .where('type', 'in', ['email.opened', 'email.clicked'])
    .where(OF_CAMPAIGN(campaignId))
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
}

/** Every tracked link of the campaign (stored when sending started) with its clicks, in the order of the HTML. */
export async function linkClicks(db: Db, accountId: string, campaignId: string) {
  const [links, clicks] = await Promise.all([
    db
      .selectFrom('campaign_links')
      .select(['idx', 'url'])
      .where('campaign_id', '=', campaignId)
      .orderBy('idx')
      .execute(),
    db
      .selectFrom('events')
      .select([
        sql<string>`data ->> 'url'`.as('url'),
        sql<number>`count(*)::int`.as('clicks'),
        sql<number>`count(distinct subscriber_id)::int`.as('unique_clicks'),
      ])
      .where('account_id', '=', accountId)
      .where('type', '=', 'email.clicked')
      .where(OF_CAMPAIGN(campaignId))
      .groupBy(sql`1`)
      .execute(),
  ]);
  return { links, clicks };
}

/**
 * The campaign's recipients a person opened or clicked, per email client and device of their first open or
 * click: how many opened (a click counts as an open, as unique_human_opens does) and how many clicked.
 */
export function clientCounts(db: Db, accountId: string, campaignId: string) {
  return db
    .selectFrom('campaign_recipients')
    .select([
      sql<string>`client`.as('client'),
      sql<string>`coalesce(device, 'unknown')`.as('device'),
      sql<number>`(count(*) filter (where opens > machine_opens or clicked_at is not null))::int`.as('opens'),
      sql<number>`(count(*) filter (where clicked_at is not null))::int`.as('clicks'),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .where('client', 'is not', null)
    .groupBy(['client', 'device'])
    .execute();
}

/** A batch of the recipient export after ledger row `afterId`, in ledger order (keyset: constant cost per batch). */
export function recipientBatch(
  db: Db,
  accountId: string,
  campaignId: string,
  filter: RecipientFilter | undefined,
  afterId: number,
  limit: number,
) {
  return db
    .selectFrom('campaign_recipients as r')
    .innerJoin('subscribers as s', 's.id', 'r.subscriber_id')
    .select([
      'r.id as row_id',
      's.id',
      's.email',
      's.first_name',
      's.last_name',
      'r.state',
      'r.last_error',
      'r.smtp_reply',
      'r.smtp_code',
      'r.smtp_status',
      'r.failure',
      'r.sent_at',
      'r.opened_at',
      'r.clicked_at',
      'r.unsubscribed_at',
      'r.bounced_at',
      'r.complained_at',
    ])
    .where('r.account_id', '=', accountId)
    .where('r.campaign_id', '=', campaignId)
    .where('r.id', '>', afterId)
    .$if(filter !== undefined, (qb) => qb.where(FILTERS[filter!]))
    .orderBy('r.id')
    .limit(limit)
    .execute();
}

/** Subscribers added per day (in the account's time zone) since `days` days ago, today included. */
export function newPerDay(db: Db, accountId: string, timezone: string, days: number) {
  // grouped by the date and formatted per day, not per subscriber (to_char on each of a month's rows was
  // half of the read at a million subscribers)
  const perDay = db
    .selectFrom('subscribers')
    .select([sql<string>`(created_at at time zone ${timezone})::date`.as('d'), sql<number>`count(*)::int`.as('n')])
    .where('account_id', '=', accountId)
    .where(
      'created_at',
      '>=',
      sql<Date>`(date_trunc('day', now() at time zone ${timezone}) - make_interval(days => ${days - 1})) at time zone ${timezone}`,
    )
    .groupBy(sql`1`);
  return db
    .selectFrom(perDay.as('p'))
    .select([sql<string>`to_char(p.d, 'YYYY-MM-DD')`.as('day'), 'p.n'])
    .execute();
}

/** Today's date in the account's time zone, as the growth series counts days. */
export async function today(db: Db, timezone: string): Promise<string> {
  const r = await sql<{ d: string }>`select to_char((now() at time zone ${timezone})::date, 'YYYY-MM-DD') as d`.execute(
    db,
  );
  return r.rows[0]!.d;
}

/** The campaigns that started sending in the last `days` days: the overview's 30-day rates are theirs. */
export async function startedSince(db: Db, accountId: string, days: number): Promise<string[]> {
  const rows = await db
    .selectFrom('campaigns')
    .select('id')
    .where('account_id', '=', accountId)
    .where('started_at', '>=', sql<Date>`now() - make_interval(days => ${days})`)
    .execute();
  return rows.map((r) => r.id);
}
