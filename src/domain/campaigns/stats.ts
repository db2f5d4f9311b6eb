// What the ledger says about campaigns: stats and the per-recipient list behind
// get_campaign_subscribers. Both are read from campaign_recipients, whose rows the send workers, the
// tracking routes, unsubscribe and bounce processing keep current — one aggregate per call, no counters.
import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { parseInput } from '../validation.ts';

export interface Stats {
  recipients: number;
  sent: number;
  failed: number;
  opens: number;
  unique_opens: number;
  clicks: number;
  unique_clicks: number;
  unsubscribes: number;
  bounces: number;
  complaints: number;
  /** beyond the spec's list, so that recipients = sent + failed + skipped + interrupted + pending always reads off */
  skipped: number;
  interrupted: number;
  pending: number;
  soft_bounces: number;
}

/** The engagement part of the stats, which automation stats share (engagementCounts). */
export type Engagement = Omit<Stats, 'recipients' | 'sent' | 'failed' | 'skipped' | 'interrupted' | 'pending'>;

export const EMPTY: Stats = Object.freeze({
  recipients: 0, sent: 0, failed: 0, opens: 0, unique_opens: 0, clicks: 0, unique_clicks: 0,
  unsubscribes: 0, bounces: 0, complaints: 0, skipped: 0, interrupted: 0, pending: 0, soft_bounces: 0,
});

export async function of(db: Db, accountId: string, campaignIds: string[]): Promise<Map<string, Stats>> {
  if (campaignIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('campaign_recipients')
    .select([
      'campaign_id',
      sql<number>`count(*)::int`.as('recipients'),
      sql<number>`(count(*) filter (where state = 'sent'))::int`.as('sent'),
      sql<number>`(count(*) filter (where state = 'failed'))::int`.as('failed'),
      sql<number>`(count(*) filter (where state = 'skipped'))::int`.as('skipped'),
      sql<number>`(count(*) filter (where state = 'interrupted'))::int`.as('interrupted'),
      sql<number>`(count(*) filter (where state in ('queued', 'sending')))::int`.as('pending'),
      ...engagementCounts(),
    ])
    .where('account_id', '=', accountId)
    .where('campaign_id', 'in', campaignIds)
    .groupBy('campaign_id')
    .execute();
  return new Map(rows.map(({ campaign_id, ...s }) => [campaign_id, { ...EMPTY, ...s }]));
}

/**
 * What campaign and automation stats both count off their email rows (campaign_recipients and
 * automation_emails carry the same engagement columns): opens and clicks (total and unique), unsubscribes,
 * bounces, complaints and soft bounces.
 */
export function engagementCounts() {
  return [
    sql<number>`coalesce(sum(opens), 0)::int`.as('opens'),
    sql<number>`count(opened_at)::int`.as('unique_opens'),
    sql<number>`coalesce(sum(clicks), 0)::int`.as('clicks'),
    sql<number>`count(clicked_at)::int`.as('unique_clicks'),
    sql<number>`count(unsubscribed_at)::int`.as('unsubscribes'),
    sql<number>`count(bounced_at)::int`.as('bounces'),
    sql<number>`count(complained_at)::int`.as('complaints'),
    sql<number>`coalesce(sum(soft_bounces), 0)::int`.as('soft_bounces'),
  ] as const;
}

export const RECIPIENT_FILTERS = ['sent', 'failed', 'opened', 'unopened', 'clicked', 'unsubscribed', 'bounced', 'complained'] as const;
export type RecipientFilter = (typeof RECIPIENT_FILTERS)[number];

export const RecipientsQuery = z.object({
  filter: z.enum(RECIPIENT_FILTERS, { error: `filter must be one of: ${RECIPIENT_FILTERS.join(', ')}` }).optional(),
  page: z.coerce.number().int().min(1, 'page must be a positive integer').default(1),
  per_page: z.coerce.number().int().min(1, 'per_page must be a positive integer').default(25).transform((n) => Math.min(n, 100)),
});
export type RecipientsQuery = z.input<typeof RecipientsQuery>;

/** One page of a campaign's ledger rows with their subscriber (the campaign is checked by the caller). */
export async function recipients(db: Db, accountId: string, campaignId: string, query: RecipientsQuery) {
  const q = parseInput(RecipientsQuery, query);
  const base = db
    .selectFrom('campaign_recipients as r')
    .innerJoin('subscribers as s', 's.id', 'r.subscriber_id')
    .where('r.account_id', '=', accountId)
    .where('r.campaign_id', '=', campaignId)
    .$if(q.filter !== undefined, (qb) => qb.where(FILTERS[q.filter!]));
  const rows = await base
    .select([
      's.id', 's.email', 's.first_name', 's.last_name', 's.status',
      'r.state', 'r.attempts', 'r.message_id', 'r.last_error', 'r.sent_at', 'r.opens', 'r.clicks',
      'r.opened_at', 'r.clicked_at', 'r.unsubscribed_at', 'r.bounced_at', 'r.complained_at',
    ])
    .orderBy('r.id')
    .limit(q.per_page)
    .offset((q.page - 1) * q.per_page)
    .execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const items = rows.map(({ id, email, first_name, last_name, status, ...ledger }) => ({ subscriber: { id, email, first_name, last_name, status }, ...ledger }));
  return { recipients: items, total: Number(n), page: q.page, per_page: q.per_page };
}

// each filter is a fixed expression over the ledger row, chosen from this whitelist by the zod enum
const FILTERS = {
  sent: sql<boolean>`r.state = 'sent'`,
  failed: sql<boolean>`r.state = 'failed'`,
  opened: sql<boolean>`r.opened_at is not null`,
  unopened: sql<boolean>`r.state = 'sent' and r.opened_at is null`,
  clicked: sql<boolean>`r.clicked_at is not null`,
  unsubscribed: sql<boolean>`r.unsubscribed_at is not null`,
  bounced: sql<boolean>`r.bounced_at is not null`,
  complained: sql<boolean>`r.complained_at is not null`,
} satisfies Record<RecipientFilter, unknown>;
