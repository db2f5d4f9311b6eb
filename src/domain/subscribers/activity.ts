// get_subscriber_activity: one subscriber's history read from the event log ("event log as the
// spine"), newest first. The events_subscriber index (subscriber_id, created_at desc) serves the page.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { EVENT_TYPES } from '../events/log.ts';
import { parseInput } from '../validation.ts';

export const ActivityQuery = z.object({
  page: z.number().int().min(1).default(1),
  per_page: z
    .number()
    .int()
    .min(1)
    .default(25)
    .transform((n) => Math.min(n, 100)),
  type: z.enum(EVENT_TYPES, { error: `type must be one of: ${EVENT_TYPES.join(', ')}` }).optional(),
});
export type ActivityQuery = z.input<typeof ActivityQuery>;

export interface ActivityItem {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export async function ofSubscriber(db: Db, accountId: string, subscriberId: string, query: ActivityQuery) {
  const q = parseInput(ActivityQuery, query);
  const sub = await db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).where('id', '=', subscriberId).executeTakeFirst();
  if (!sub) throw new NotFound('Subscriber not found');
  const base = db
    .selectFrom('events')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .$if(q.type !== undefined, (qb) => qb.where('type', '=', q.type!));
  const activity: ActivityItem[] = await base
    .select(['id', 'type', 'data', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(q.per_page)
    .offset((q.page - 1) * q.per_page)
    .execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { activity, total: Number(n), page: q.page, per_page: q.per_page };
}
