// What the ledger says about campaigns: stats and the per-recipient list behind
// get_campaign_subscribers. The ledger (campaign_recipients) is what the send workers, the tracking
// routes, unsubscribe and bounce processing write; the stats are its counts, kept by the database in the
// same transactions (countQueries), the list is read from it.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { offsetOf, pageFields, pageOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import * as counts from './countQueries.ts';
import * as queries from './queries.ts';

// automation stats count the same engagement columns of their own email rows
export { engagementCounts } from './queries.ts';

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
  /** beyond the spec's list: of opens, the pixel loads of privacy proxies (feedback/machineOpens.ts) */
  machine_opens: number;
  /** emails a person opened: unique_opens without those only a privacy proxy loaded */
  unique_human_opens: number;
}

/** The engagement part of the stats, which automation stats share (engagementCounts). */
export type Engagement = Omit<
  Stats,
  'recipients' | 'sent' | 'failed' | 'skipped' | 'interrupted' | 'pending' | 'machine_opens' | 'unique_human_opens'
>;

export const EMPTY: Stats = Object.freeze({
  recipients: 0,
  sent: 0,
  failed: 0,
  opens: 0,
  unique_opens: 0,
  clicks: 0,
  unique_clicks: 0,
  unsubscribes: 0,
  bounces: 0,
  complaints: 0,
  skipped: 0,
  interrupted: 0,
  pending: 0,
  soft_bounces: 0,
  machine_opens: 0,
  unique_human_opens: 0,
});

const {
  recipients: _r,
  sent: _s,
  failed: _f,
  skipped: _k,
  interrupted: _i,
  pending: _p,
  machine_opens: _m,
  unique_human_opens: _h,
  ...engagement
} = EMPTY;
/** No engagement yet: what an automation without emails counts. */
export const NO_ENGAGEMENT: Engagement = Object.freeze(engagement);

/** Each campaign's stats, as the database keeps them (countQueries); absent for a campaign never frozen. */
export async function of(db: Db, accountId: string, campaignIds: string[]): Promise<Map<string, Stats>> {
  if (campaignIds.length === 0) return new Map();
  return counts.of(db, accountId, campaignIds);
}

export const RECIPIENT_FILTERS = [
  'sent',
  'failed',
  'opened',
  'unopened',
  'clicked',
  'unsubscribed',
  'bounced',
  'complained',
] as const satisfies readonly queries.RecipientFilter[];

export const RecipientsQuery = z.object({
  filter: z.enum(RECIPIENT_FILTERS, { error: `filter must be one of: ${RECIPIENT_FILTERS.join(', ')}` }).optional(),
  ...pageFields(),
});
export type RecipientsQuery = z.input<typeof RecipientsQuery>;

type RecipientRow = Awaited<ReturnType<typeof queries.recipientPage>>['rows'][number];
type Ledger = Omit<RecipientRow, 'id' | 'email' | 'first_name' | 'last_name' | 'status'>;
export type Recipient = {
  subscriber: Pick<RecipientRow, 'id' | 'email' | 'first_name' | 'last_name' | 'status'>;
} & Ledger;

/** One page of a campaign's ledger rows with their subscriber (the campaign is checked by the caller). */
export async function recipients(
  db: Db,
  accountId: string,
  campaignId: string,
  query: RecipientsQuery,
): Promise<Page<Recipient>> {
  const q = parseInput(RecipientsQuery, query);
  const { rows, total } = await queries.recipientPage(db, accountId, campaignId, q.filter, q.per_page, offsetOf(q));
  const items = rows.map(({ id, email, first_name, last_name, status, ...ledger }) => ({
    subscriber: { id, email, first_name, last_name, status },
    ...ledger,
  }));
  return pageOf(items, q, total);
}
