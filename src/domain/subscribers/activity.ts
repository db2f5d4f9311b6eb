// get_subscriber_activity: one subscriber's history read from the event log ("event log as the
// spine"), newest first.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { NotFound } from '../errors.ts';
import { EVENT_TYPES } from '../events/log.ts';
import { pageFields, pageOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';

export const ActivityQuery = z.object({
  ...pageFields({ coerce: false }),
  type: z.enum(EVENT_TYPES, { error: `type must be one of: ${EVENT_TYPES.join(', ')}` }).optional(),
});
export type ActivityQuery = z.input<typeof ActivityQuery>;

export interface ActivityItem {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export async function ofSubscriber(
  db: Db,
  accountId: string,
  subscriberId: string,
  query: unknown,
): Promise<Page<ActivityItem>> {
  const { type, ...p } = parseInput(ActivityQuery, query);
  // the total also says whether the subscriber is the account's; both at once (two connections on PostgreSQL)
  const [total, items] = await Promise.all([
    repo.countActivity(db, accountId, subscriberId, type),
    repo.activity(db, accountId, subscriberId, type, p),
  ]);
  if (total === undefined) throw new NotFound('Subscriber not found');
  return pageOf(items, p, total);
}

/** An activity item with the name of the campaign or automation its email came from, where there is one. */
export type NamedActivityItem = ActivityItem & { source_name?: string };

/**
 * The dashboard's history names what each email was ("Opened June newsletter"): the campaigns' and
 * automations' names of one page, read in two queries; a deleted one stays unnamed. The event data itself
 * (what webhooks and MCP carry) is left as it was recorded.
 */
export async function withNames(db: Db, accountId: string, page: Page<ActivityItem>): Promise<Page<NamedActivityItem>> {
  const ids = (key: string) => [
    ...new Set(page.items.map((i) => i.data[key]).filter((v): v is string => typeof v === 'string' && UUID.test(v))),
  ];
  const [campaigns, automations] = await Promise.all([
    repo.namesOf(db, accountId, 'campaigns', ids('campaign_id')),
    repo.namesOf(db, accountId, 'automations', ids('automation_id')),
  ]);
  return {
    ...page,
    items: page.items.map((i) => {
      const name = campaigns.get(String(i.data.campaign_id)) ?? automations.get(String(i.data.automation_id));
      return name === undefined ? i : { ...i, source_name: name };
    }),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
