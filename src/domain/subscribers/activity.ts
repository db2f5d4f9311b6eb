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
  query: ActivityQuery,
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
