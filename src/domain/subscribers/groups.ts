// Groups of one account: create, get, list (with subscriber_count and active_count), update, remove,
// members, and assign/unassign of one subscriber. Names are unique per account, case-insensitively.
// Every membership change writes subscriber.added_to_group / removed_from_group in the same transaction.
import { z } from 'zod';
import { pageOf, PageQuery, type Page } from '../paging.ts';
import type { Db } from '../../db/client.ts';
import * as counts from './countQueries.ts';
import * as repo from './groupQueries.ts';
import * as subscriberRepo from './queries.ts';
import { Conflict, NotFound } from '../errors.ts';
import { recordEvent } from '../events/log.ts';
import * as subscribers from './subscribers.ts';
import { parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const GroupName = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(255, 'Name must be at most 255 characters');

export const NewGroup = z.object({ name: GroupName });
export type NewGroup = z.input<typeof NewGroup>;
export const GroupUpdate = NewGroup;
export type GroupUpdate = NewGroup;

export const ListQuery = PageQuery.extend({
  search: z.string().trim().max(255).optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

export const MembersQuery = subscribers.ListQuery.omit({ group_id: true }).extend({
  per_page: PageQuery.shape.per_page,
});
export type MembersQuery = z.input<typeof MembersQuery>;

export interface Group {
  id: string;
  name: string;
  subscriber_count: number;
  active_count: number;
  created_at: Date;
  updated_at: Date;
}

export const NOT_FOUND = 'Group not found';
const NAME_TAKEN = 'A group with this name already exists';

export async function create(db: Db, accountId: string, input: unknown): Promise<Group> {
  const { name } = parseInput(NewGroup, input);
  const row = await repo.insert(db, accountId, name);
  if (!row) throw new Conflict(NAME_TAKEN);
  return {
    id: row.id,
    name: row.name,
    subscriber_count: 0,
    active_count: 0,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function get(db: Db, accountId: string, id: string): Promise<Group> {
  const row = await repo.findWithCounts(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return view(row);
}

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<Group>> {
  const q = parseInput(ListQuery, query);
  const search = q.search || undefined;
  const [rows, total] = [
    await repo.listWithCounts(db, accountId, { ...q, search }),
    await repo.countMatching(db, accountId, search),
  ];
  return pageOf(rows.map(view), q, total);
}

export async function update(db: Db, accountId: string, id: string, input: unknown): Promise<Group> {
  const { name } = parseInput(GroupUpdate, input);
  await inTransaction(db, async (trx) => {
    if (!(await repo.lock(trx, accountId, id))) throw new NotFound(NOT_FOUND);
    if (await repo.nameTaken(trx, accountId, name, id)) throw new Conflict(NAME_TAKEN);
    await repo.rename(trx, accountId, id, name);
  });
  return get(db, accountId, id);
}

/** Deletes the group; its memberships go with it (subscribers stay). */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  const row = await repo.remove(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
}

/** The group's subscribers (list columns), newest first; the group must exist in the account. */
export async function members(
  db: Db,
  accountId: string,
  groupId: string,
  query: unknown,
): Promise<Page<subscribers.ListItem>> {
  const q = parseInput(MembersQuery, query);
  if (!(await repo.findById(db, accountId, groupId))) throw new NotFound(NOT_FOUND);
  return subscribers.list(db, accountId, { ...q, group_id: groupId });
}

/** Group ids of this account among `ids` (a segment filter may only name the account's own groups). */
export function existingIds(db: Db, accountId: string, ids: string[]): Promise<Set<string>> {
  return repo.existingIds(db, accountId, ids);
}

/**
 * The memberships of these groups (each member once per group, any status) and the account's subscribers,
 * from the kept counts: how large a share of the account the groups are, for a reader choosing between
 * reading every subscriber row and probing the members (campaigns/ledgerQueries.ts).
 */
export async function membersShare(
  db: Db,
  accountId: string,
  groupIds: string[],
): Promise<{ memberships: number; subscribers: number }> {
  const [groups, all] = await Promise.all([counts.ofGroups(db, accountId, groupIds), counts.byStatus(db, accountId)]);
  let memberships = 0;
  for (const g of groups.values()) memberships += g.subscriber_count;
  return { memberships, subscribers: Object.values(all).reduce((a, b) => a + b, 0) };
}

export interface MembershipChange {
  subscriber: { id: string; email: string };
  group: { id: string; name: string };
}

/** Adds one subscriber to one group; adding an existing member changes nothing (added: false). */
export async function assign(
  db: Db,
  accountId: string,
  groupId: string,
  subscriberId: string,
): Promise<MembershipChange & { added: boolean }> {
  return inTransaction(db, async (trx) => {
    const { sub, group } = await both(trx, accountId, groupId, subscriberId);
    const already = await repo.isMember(trx, accountId, group.id, sub.id);
    if (!already) await subscribers.joinGroups(trx, accountId, sub, [group.id]);
    return { subscriber: { id: sub.id, email: sub.email }, group, added: !already };
  });
}

/** Removes one subscriber from one group; a non-member is left as is (removed: false). */
export async function unassign(
  db: Db,
  accountId: string,
  groupId: string,
  subscriberId: string,
): Promise<MembershipChange & { removed: boolean }> {
  return inTransaction(db, async (trx) => {
    const { sub, group } = await both(trx, accountId, groupId, subscriberId);
    const removed = await subscriberRepo.removeFromGroups(trx, accountId, sub.id, [group.id]);
    const change = { subscriber: { id: sub.id, email: sub.email }, group };
    if (removed.length > 0) await recordEvent(trx, accountId, 'subscriber.removed_from_group', change, sub.id);
    return { ...change, removed: removed.length > 0 };
  });
}

/** "Group not found" unless the account has this group; cheaper than get(), which counts the members. */
export async function ensureExists(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await repo.findById(db, accountId, id))) throw new NotFound(NOT_FOUND);
}

async function both(trx: Db, accountId: string, groupId: string, subscriberId: string) {
  const sub = await subscribers.get(trx, accountId, subscriberId);
  const group = await repo.findById(trx, accountId, groupId);
  if (!group) throw new NotFound(NOT_FOUND);
  return { sub, group };
}

function view(row: {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
  subscriber_count: number | null;
  active_count: number | null;
}): Group {
  return {
    id: row.id,
    name: row.name,
    subscriber_count: Number(row.subscriber_count ?? 0),
    active_count: Number(row.active_count ?? 0),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
