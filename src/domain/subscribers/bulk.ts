// Bulk actions on subscribers: one server-side operation over explicit ids or everything the list's
// filter matches. Each action is one set-based statement in one transaction, and writes the same events,
// with the same data, as the single-subscriber function it stands for (groups.assign/unassign,
// subscribers.update with status unsubscribed, subscribers.remove), so webhooks see no difference.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './bulkQueries.ts';
import * as groupRepo from './groupQueries.ts';
import { NotFound } from '../errors.ts';
import { recordEvents, type EventInput } from '../events/log.ts';
import { publicView, ListQuery } from './subscribers.ts';
import { parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const MAX_IDS = 10_000;
const EVENTS_PER_INSERT = 2_000;

export const ACTIONS = ['add_to_group', 'remove_from_group', 'unsubscribe', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

/** The list's filters, with the list's own words for a bad value. */
export const Filter = ListQuery.pick({ status: true, search: true, group_id: true });
export type Filter = z.input<typeof Filter>;

export const BulkAction = z
  .object({
    action: z.enum(ACTIONS, { error: `action must be one of: ${ACTIONS.join(', ')}` }),
    group_id: z.guid('group_id must be a UUID').optional(),
    ids: z
      .array(z.guid('Each id must be a UUID'), { error: 'ids must be an array of UUIDs' })
      .max(MAX_IDS, `ids may hold at most ${MAX_IDS.toLocaleString('en')} ids`)
      .optional(),
    filter: Filter.optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.ids === undefined) === (b.filter === undefined))
      ctx.addIssue({ code: 'custom', path: ['ids'], message: 'Give either ids or filter' });
    if ((b.action === 'add_to_group' || b.action === 'remove_from_group') && b.group_id === undefined)
      ctx.addIssue({ code: 'custom', path: ['group_id'], message: `group_id is required for ${b.action}` });
  });
export type BulkAction = z.input<typeof BulkAction>;

/**
 * `options.where` narrows a filter selection further with another context's condition (the dashboard's
 * segment filter, segments/subscriberList.ts), as subscribers.list takes it.
 */
export async function apply(
  db: Db,
  accountId: string,
  input: unknown,
  options: { where?: repo.Condition } = {},
): Promise<{ affected: number }> {
  const b = parseInput(BulkAction, input);
  const sel: repo.Selection = b.ids
    ? { ids: [...new Set(b.ids.map((id) => id.toLowerCase()))] }
    : { filter: { ...filterOf(b.filter!), where: options.where } };
  return inTransaction(db, async (trx) => {
    let events: EventInput[];
    if (b.action === 'add_to_group' || b.action === 'remove_from_group') {
      // the group row is locked like a rename locks it, so a concurrent delete cannot leave events naming it
      const group = await groupRepo.lock(trx, accountId, b.group_id!);
      if (!group) throw new NotFound('Group not found');
      const adding = b.action === 'add_to_group';
      const changed = adding
        ? await repo.addToGroup(trx, accountId, group.id, sel)
        : await repo.removeFromGroup(trx, accountId, group.id, sel);
      events = changed.map((s) => ({
        type: adding ? 'subscriber.added_to_group' : 'subscriber.removed_from_group',
        subscriberId: s.id,
        data: { subscriber: { id: s.id, email: s.email }, group: { id: group.id, name: group.name } },
      }));
    } else if (b.action === 'unsubscribe') {
      events = (await repo.unsubscribe(trx, accountId, sel)).flatMap((row): EventInput[] => {
        const subscriber = publicView(row);
        return [
          { type: 'subscriber.updated', subscriberId: row.id, data: { subscriber } },
          { type: 'subscriber.unsubscribed', subscriberId: row.id, data: { subscriber, source: 'api' } },
        ];
      });
    } else {
      events = (await repo.remove(trx, accountId, sel)).map((row) => ({
        type: 'subscriber.deleted',
        subscriberId: null,
        data: { subscriber: { id: row.id, email: row.email } },
      }));
    }
    for (let i = 0; i < events.length; i += EVENTS_PER_INSERT)
      await recordEvents(trx, accountId, events.slice(i, i + EVENTS_PER_INSERT));
    const affected = b.action === 'unsubscribe' ? events.length / 2 : events.length;
    return { affected };
  });
}

/** The filter as the list reads it: an empty search is no search. */
export function filterOf(f: z.output<typeof Filter>): repo.Filter {
  return { status: f.status, search: f.search === '' ? undefined : f.search, group_id: f.group_id };
}
