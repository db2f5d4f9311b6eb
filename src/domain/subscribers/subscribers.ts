// Subscribers of one account: create, getFull, list, update, remove, stats, upsertByEmail.
// Owns the subscribers table and each subscriber's field values, group memberships and notes.
// Every function filters by accountId; every change writes its event in the same transaction.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as groupRepo from './groupQueries.ts';
import * as counts from './countQueries.ts';
import * as repo from './queries.ts';
import { cachedRead, readCacheOf } from '../../db/readCache.ts';
import type { SubscriberRow, SubscriberStatus } from '../../db/schema.ts';
import { Conflict, LimitExceeded, NotFound, Validation } from '../errors.ts';
import { recordEvent, recordEvents, type EventInput } from '../events/log.ts';
import * as fields from './fields.ts';
import { pageFields, pageOf, type Page } from '../paging.ts';
import { storableString } from '../storable.ts';
import { isTimeZone, parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const STATUSES = [
  'active',
  'unsubscribed',
  'bounced',
  'complained',
] as const satisfies readonly SubscriberStatus[];
export type { SubscriberStatus };

export const Email = z
  .string({ error: 'A valid email address is required' })
  // trim first: z.email().trim() checks the format before trimming and rejects " ada@example.com"
  .trim()
  .max(254, 'Email must be at most 254 characters')
  .pipe(z.email('A valid email address is required'));

const Name = storableString().trim().max(255).nullable();
const Phone = z
  .string()
  .trim()
  .max(32)
  .regex(/^\+?[0-9 ()./-]*$/, 'Phone must contain only digits, optionally with a leading plus sign')
  .nullable();
const GroupIds = z.array(z.guid('Each group id must be a UUID')).max(1000);
// bounced and complained are set by bounce processing, never by a caller
const SettableStatus = z.enum(['active', 'unsubscribed'], { error: 'Status must be one of: active, unsubscribed' });
const CustomFields = z.record(z.string(), z.unknown(), { error: 'custom_fields must be an object' });
/** for local-time delivery: an IANA zone name this runtime knows (the database knows the same names) */
export const TimeZone = z
  .string()
  .trim()
  .max(64, 'time_zone must be an IANA time zone name, e.g. Europe/Berlin')
  .refine(isTimeZone, 'time_zone must be an IANA time zone name, e.g. Europe/Berlin')
  .nullable();

export const NewSubscriber = z.object({
  email: Email,
  first_name: Name.optional(),
  last_name: Name.optional(),
  phone: Phone.optional(),
  group_ids: GroupIds.optional(),
  custom_fields: CustomFields.optional(),
  time_zone: TimeZone.optional(),
});
export type NewSubscriber = z.input<typeof NewSubscriber>;

export const SubscriberUpdate = z.object({
  first_name: Name.optional(),
  last_name: Name.optional(),
  phone: Phone.optional(),
  status: SettableStatus.optional(),
  group_ids: GroupIds.optional(),
  custom_fields: CustomFields.optional(),
  time_zone: TimeZone.optional(),
});
export type SubscriberUpdate = z.input<typeof SubscriberUpdate>;

/** The dashboard's edit: an update that may also change the address (the spec's REST and MCP cannot). */
export const SubscriberEdit = SubscriberUpdate.extend({ email: Email.optional() });
export type SubscriberEdit = z.input<typeof SubscriberEdit>;

export const ListQuery = z.object({
  ...pageFields({ defaultPerPage: 20 }),
  // this list has always said "Page …", capitalised, where the other lists say "page …"
  page: z.coerce
    .number({ error: 'Page must be a positive integer' })
    .int('Page must be a positive integer')
    .min(1, 'Page must be a positive integer')
    .default(1),
  status: z.enum(STATUSES, { error: 'Status must be one of: active, unsubscribed, bounced, complained' }).optional(),
  search: storableString().trim().max(254).optional(),
  group_id: z.guid('group_id must be a UUID').optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

export type Subscriber = SubscriberRow;
export type ListItem = Pick<SubscriberRow, 'id' | 'email' | 'first_name' | 'last_name' | 'status' | 'created_at'>;

/** What the list's caller adds: another context's condition (segment rules) and whether rows carry `source`. */
export interface ListOptions {
  where?: repo.Condition;
  withSource?: boolean;
}
export interface FullSubscriber extends SubscriberRow {
  groups: { id: string; name: string }[];
  notes: { id: string; content: string; created_at: Date }[];
}

export type Source = 'api' | 'import' | 'form' | 'dashboard' | 'mcp';

/** The subscriber as webhook payloads and activity show it. */
export function publicView(s: SubscriberRow) {
  // time_zone is ours (local-time delivery), not part of the spec's subscriber
  const { account_id: _a, source: _s, unsubscribed_at: _u, member_of: _m, time_zone: _z, ...rest } = s;
  return rest;
}

export async function create(db: Db, accountId: string, input: unknown, source: Source = 'api'): Promise<Subscriber> {
  const a = parseInput(NewSubscriber, input);
  const groupIds = uniqueIds(a.group_ids ?? []);
  return withRoomForOne(db, accountId, groupIds, async (trx, room) => {
    if (room.count >= room.limit)
      throw new LimitExceeded('Subscriber limit reached', { current_count: room.count, limit: room.limit });
    const custom_fields = fields.coerceWith(room.fieldTypes, a.custom_fields ?? {});
    const groups = groupsOrThrow(groupIds, room.groups);
    return insertNew(trx, accountId, { ...a, custom_fields }, groups, source);
  });
}

/**
 * A new subscriber, its groups and its events (subscriber.created, then one subscriber.added_to_group per
 * group) in three statements: the row is inserted with its groups' ids (member_of), so the memberships'
 * trigger has nothing to write back to it, and the events go in one insert.
 */
async function insertNew(
  trx: Db,
  accountId: string,
  a: Pick<NewSubscriber, 'email' | 'first_name' | 'last_name' | 'phone' | 'time_zone'> & {
    status?: SubscriberStatus;
    custom_fields: Record<string, unknown>;
  },
  groups: Map<string, string>,
  source: Source,
): Promise<Subscriber> {
  const row = await repo.insert(trx, {
    account_id: accountId,
    email: a.email,
    first_name: a.first_name ?? null,
    last_name: a.last_name ?? null,
    phone: a.phone ?? null,
    ...(a.time_zone && { time_zone: a.time_zone }),
    ...(a.status !== undefined && {
      status: a.status,
      unsubscribed_at: a.status === 'unsubscribed' ? new Date() : null,
    }),
    custom_fields: JSON.stringify(dropNulls(a.custom_fields)),
    source,
    member_of: [...groups.keys()],
  });
  if (!row) throw new Conflict('Email already exists');
  const added = await repo.addToGroups(trx, accountId, [row.id], [...groups.keys()]);
  await recordEvents(trx, accountId, [
    { type: 'subscriber.created', subscriberId: row.id, data: { subscriber: publicView(row), source } },
    ...groupChangeEvents(row, 'subscriber.added_to_group', added, groups),
  ]);
  return row;
}

/**
 * Runs a use case that may add one subscriber in a transaction, after its plan-limit check (which reads
 * the field types and the given groups with it: repo.roomForOne). Far from the limit the check shares the
 * account row, so creates of one account run side by side (with the account row locked exclusively, 50
 * concurrent creates queued behind each other at under 100 a second); near it, or inside a caller's
 * transaction, the check is exclusive as two creates at limit - 1 must not both get through. A transaction
 * that finds itself near the limit has written nothing yet and starts again.
 */
async function withRoomForOne<T>(
  db: Db,
  accountId: string,
  groupIds: string[],
  body: (trx: Db, room: repo.RoomForOne) => Promise<T>,
): Promise<T> {
  let deltas = 0;
  const checked = async (trx: Db, lock: 'share' | 'exclusive') => {
    const room = await repo.roomForOne(trx, accountId, groupIds, lock);
    deltas = room.deltas;
    return room;
  };
  let result: T | typeof nearLimit = nearLimit;
  if (!db.isTransaction)
    result = await inTransaction(db, async (trx) => {
      const room = await checked(trx, 'share');
      return room.count + room.sessions <= room.limit ? body(trx, room) : nearLimit;
    });
  if (result === nearLimit) result = await inTransaction(db, async (trx) => body(trx, await checked(trx, 'exclusive')));
  await counts.compactIfLong(db, accountId, deltas);
  return result;
}

const nearLimit = Symbol('near the limit');

/**
 * One subscriber with groups and notes. Outside a transaction it is served from a read cache that any
 * write empties (db/readCache.ts): integrations poll this read far more often than subscribers change.
 * The result is frozen; callers copy what they change.
 */
export async function getFull(
  db: Db,
  accountId: string,
  by: { id: string } | { email: string },
): Promise<Readonly<FullSubscriber>> {
  const lookup = 'id' in by ? by : { email: by.email.trim() };
  const load = async (): Promise<FullSubscriber | undefined> => {
    const row = await repo.findFull(db, accountId, lookup);
    return row && { ...row, notes: row.notes.map((n) => ({ ...n, created_at: new Date(n.created_at) })) };
  };
  const cache = readCacheOf<FullSubscriber>(db, 'subscriber');
  const key = 'id' in lookup ? `${accountId} id ${lookup.id}` : `${accountId} email ${lookup.email.toLowerCase()}`;
  const found = cache ? await cache.get(key, load) : await load();
  if (!found) throw new NotFound('Subscriber not found');
  return found;
}

export async function get(db: Db, accountId: string, id: string): Promise<Subscriber> {
  const row = await repo.findById(db, accountId, id);
  if (!row) throw new NotFound('Subscriber not found');
  return row;
}

export async function list(
  db: Db,
  accountId: string,
  query: unknown,
  options: ListOptions = {},
): Promise<Page<ListItem & { source?: string }>> {
  const q = parseInput(ListQuery, query);
  const search = q.search === '' ? undefined : q.search;
  const filter = { status: q.status, search, group_id: q.group_id, where: options.where };
  const page = { ...filter, page: q.page, per_page: q.per_page, withSource: options.withSource };
  if (search === undefined || options.where !== undefined) {
    // two statements at once: on PostgreSQL they run on two connections (PGlite queues them anyway)
    const [rows, total] = await Promise.all([pageRows(db, accountId, page), repo.countMatching(db, accountId, filter)]);
    return pageOf(rows, q, total);
  }
  // a search that matches few subscribers reads its page and total in one statement; else both at once
  const breadthKey = JSON.stringify([accountId, q.status, q.group_id, search]);
  const read = async () => {
    const totalOf = () => searchTotal(db, accountId, { status: q.status, search, group_id: q.group_id });
    if (!((searchBreadth.get(breadthKey) ?? 0) > repo.FEW_MATCHES)) {
      const few = await repo.fewMatchesPage(db, accountId, page);
      if (few) {
        const total = few.total ?? (await totalOf());
        rememberBreadth(breadthKey, total);
        return pageOf(few.rows.map(withoutPosition), q, total);
      }
    }
    const [rows, total] = await Promise.all([pageRows(db, accountId, page), totalOf()]);
    rememberBreadth(breadthKey, total);
    return pageOf(rows, q, total);
  };
  const key = JSON.stringify([
    accountId,
    q.status,
    q.group_id,
    search,
    q.page,
    q.per_page,
    options.withSource === true,
  ]);
  return cachedRead(db, 'search pages', key, read, { maxEntries: 200 });
}

/**
 * How many subscribers each recent search matched when last read, whatever was written since: only a hint
 * of which way to read its next page. A search known to match many goes straight to its page and total at
 * once, without first trying to read its matches whole (fewMatchesPage), which for a word 2,001 of 1,000,000
 * subscribers share cost as much again (a cold one-word search 16.7 → 26.3 ms p50). A hint gone wrong (the
 * many were deleted) costs one walk, whose total corrects it.
 */
const searchBreadth = new Map<string, number>();
const BREADTHS_KEPT = 1000;

function rememberBreadth(key: string, total: number): void {
  searchBreadth.delete(key);
  searchBreadth.set(key, total);
  if (searchBreadth.size > BREADTHS_KEPT) searchBreadth.delete(searchBreadth.keys().next().value!);
}

/**
 * One page of the list. Where each page starts is kept between writes (db/readCache.ts): a client walking
 * the list page by page, as an export through the API does, reads each page as a range of the created_at
 * index from where the last one ended, instead of skipping every row before it (at 1,000,000 subscribers and
 * 100 a page, the 10,000th page would skip 999,900 index entries, and the whole walk would read the index
 * 5,000 times over). The first read of a page no one has reached since the last write still skips.
 */
async function pageRows(db: Db, accountId: string, q: repo.SearchInput) {
  const positions = q.where === undefined ? readCacheOf<repo.PagePosition>(db, 'page positions', POSITIONS) : undefined;
  if (!positions) return (await repo.search(db, accountId, q)).map(withoutPosition);
  const started = positions.now;
  const list = JSON.stringify([accountId, q.status, q.group_id, q.search, q.per_page]);
  const rows = await repo.search(db, accountId, {
    ...q,
    from: q.page > 1 ? positions.peek(`${list} ${q.page}`) : undefined,
  });
  const first = rows[0];
  const last = rows.at(-1);
  if (first && last) {
    positions.keep(`${list} ${q.page}`, { at: first.position_at, id: first.id, inclusive: true }, started);
    positions.keep(`${list} ${q.page + 1}`, { at: last.position_at, id: last.id, inclusive: false }, started);
  }
  return rows.map(withoutPosition);
}

const POSITIONS = { maxEntries: 10_000 };

function withoutPosition<R extends { position_at: string }>({ position_at, ...row }: R): Omit<R, 'position_at'> {
  void position_at;
  return row;
}

/**
 * Searches are kept between writes (db/readCache.ts), their pages and, apart, their exact totals, so a client
 * paging through the matches counts them once. They are the one list read whose cost grows with its
 * matches: at 1,000,000 subscribers a one-word search matching 2,000 reads each of them from the table
 * (10–12 ms for the page and as much for the total), where every other list read is an index range or a
 * kept count. Without a search the total is a kept count already.
 */
async function searchTotal(
  db: Db,
  accountId: string,
  filter: { status?: SubscriberStatus; search: string; group_id?: string },
): Promise<number> {
  const key = JSON.stringify([accountId, filter.status, filter.group_id, filter.search]);
  const load = async () => ({ n: await repo.countMatching(db, accountId, filter) });
  return (await cachedRead(db, 'search totals', key, load, { maxEntries: 1000 })).n;
}

/**
 * Changes the given fields; group_ids replaces every membership. With the caller's transaction (an
 * automation's update_field step commits the change with the run's advance) it joins that transaction.
 * `allowEmail` (the dashboard's edit) also takes `email`; another subscriber's address is a field error.
 */
export async function update(
  db: Db,
  accountId: string,
  id: string,
  input: unknown,
  options: { allowEmail?: boolean } = {},
): Promise<Subscriber> {
  const u: z.output<typeof SubscriberEdit> = options.allowEmail
    ? parseInput(SubscriberEdit, input)
    : parseInput(SubscriberUpdate, input);
  return inTransaction(db, async (trx) => {
    const found = await repo.findForUpdateWithFieldTypes(trx, accountId, id);
    if (!found) throw new NotFound('Subscriber not found');
    const before = found.subscriber;
    if (u.email !== undefined && u.email !== before.email) {
      const other = await repo.findByEmail(trx, accountId, u.email);
      if (other && other.id !== before.id) throw Validation.field('email', 'Another subscriber has this email');
    }
    const after = await applyChanges(trx, accountId, before, u, found.fieldTypes);
    if (u.group_ids !== undefined)
      await replaceGroups(trx, accountId, after, await checkGroups(trx, accountId, u.group_ids));
    return after;
  });
}

/**
 * Writes the given fields (custom_fields merged) and the events their change implies. `fieldTypes`, when the
 * caller has read them, saves reading them again.
 */
async function applyChanges(
  trx: Db,
  accountId: string,
  before: SubscriberRow,
  u: z.output<typeof SubscriberUpdate> & { email?: string },
  fieldTypes?: Map<string, fields.FieldType>,
): Promise<SubscriberRow> {
  const coerced =
    u.custom_fields &&
    (fieldTypes
      ? fields.coerceWith(fieldTypes, u.custom_fields)
      : await fields.coerce(trx, accountId, u.custom_fields));
  const merged = coerced ? dropNulls({ ...before.custom_fields, ...coerced }) : undefined;
  const statusChanges = u.status !== undefined && u.status !== before.status;
  const after = await repo.update(trx, accountId, before.id, {
    ...(u.email !== undefined && { email: u.email }),
    ...(u.first_name !== undefined && { first_name: u.first_name }),
    ...(u.last_name !== undefined && { last_name: u.last_name }),
    ...(u.phone !== undefined && { phone: u.phone }),
    ...(u.time_zone !== undefined && { time_zone: u.time_zone }),
    ...(merged && { custom_fields: JSON.stringify(merged) }),
    ...(statusChanges && { status: u.status, unsubscribed_at: u.status === 'unsubscribed' ? new Date() : null }),
    updated_at: new Date(),
  });
  const events: EventInput[] = [
    { type: 'subscriber.updated', subscriberId: after.id, data: { subscriber: publicView(after) } },
  ];
  if (statusChanges && u.status === 'unsubscribed')
    events.push({
      type: 'subscriber.unsubscribed',
      subscriberId: after.id,
      data: { subscriber: publicView(after), source: 'api' },
    });
  await recordEvents(trx, accountId, events);
  return after;
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const row = await repo.remove(trx, accountId, id);
    if (!row) throw new NotFound('Subscriber not found');
    await recordEvent(trx, accountId, 'subscriber.deleted', { subscriber: { id: row.id, email: row.email } }, null);
  });
}

export async function stats(db: Db, accountId: string) {
  const [limit, c] = await Promise.all([repo.subscriberLimit(db, accountId), repo.countByStatus(db, accountId)]);
  const total = c.active + c.unsubscribed + c.bounced + c.complained;
  return {
    total,
    active: c.active,
    unsubscribed: c.unsubscribed,
    bounced: c.bounced,
    limit,
    usage_percentage: limit > 0 ? Math.round((total / limit) * 100) : 0,
  };
}

export const UpsertSubscriber = z.object({
  email: Email,
  first_name: Name.optional(),
  last_name: Name.optional(),
  phone: Phone.optional(),
  status: SettableStatus.optional(),
  groups: GroupIds.optional(),
  custom_fields: CustomFields.optional(),
  time_zone: TimeZone.optional(),
});
export type UpsertSubscriber = z.input<typeof UpsertSubscriber>;

/**
 * MCP add_subscriber: new email → created (plan limit applies); existing → only the given
 * fields change, custom_fields merge, groups are added (never removed).
 */
export async function upsertByEmail(
  db: Db,
  accountId: string,
  input: unknown,
  source: Source = 'mcp',
): Promise<{ subscriber: Subscriber; created: boolean }> {
  const a = parseInput(UpsertSubscriber, input);
  const groupIds = uniqueIds(a.groups ?? []);
  return withRoomForOne(db, accountId, groupIds, async (trx, room) => {
    const existing = await repo.findByEmail(trx, accountId, a.email);
    const groups = groupsOrThrow(groupIds, room.groups);
    if (existing) {
      const after = await applyChanges(
        trx,
        accountId,
        existing,
        {
          first_name: a.first_name,
          last_name: a.last_name,
          phone: a.phone,
          time_zone: a.time_zone,
          status: a.status,
          custom_fields: a.custom_fields,
        },
        room.fieldTypes,
      );
      await joinGroups(trx, accountId, after, groupIds, groups);
      return { subscriber: after, created: false };
    }
    if (room.count >= room.limit)
      throw new LimitExceeded('Subscriber limit reached', { current_count: room.count, limit: room.limit });
    const custom_fields = fields.coerceWith(room.fieldTypes, a.custom_fields ?? {});
    const row = await insertNew(trx, accountId, { ...a, status: a.status ?? 'active', custom_fields }, groups, source);
    return { subscriber: row, created: true };
  });
}

/** Validates that every id is a group of this account; a foreign id reads as missing. */
export async function checkGroups(db: Db, accountId: string, ids: string[]): Promise<string[]> {
  const unique = uniqueIds(ids);
  return [...groupsOrThrow(unique, await groupRepo.existingNames(db, accountId, unique)).keys()];
}

const uniqueIds = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

/** The groups asked for (unique ids) with their names, in that order, if every one was found. */
function groupsOrThrow(unique: string[], found: Map<string, string>): Map<string, string> {
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw new Validation(
      { group_ids: missing.map((id) => `Group not found: ${id}`) },
      `group_ids: Group not found: ${missing[0]}`,
    );
  return new Map(unique.map((id) => [id, found.get(id)!]));
}

/**
 * Adds memberships and writes subscriber.added_to_group for each one that is new. `names`, when the caller
 * has read them (checkGroupNames), saves reading them again.
 */
export async function joinGroups(
  db: Db,
  accountId: string,
  sub: SubscriberRow,
  groupIds: string[],
  names?: Map<string, string>,
): Promise<void> {
  const added = await repo.addToGroups(db, accountId, [sub.id], groupIds);
  await recordGroupChanges(db, accountId, sub, 'subscriber.added_to_group', added, names);
}

/** Leaves exactly `groupIds` (spec: group_ids replaces all current memberships). */
async function replaceGroups(db: Db, accountId: string, sub: SubscriberRow, groupIds: string[]): Promise<void> {
  const removed = await repo.removeFromGroups(db, accountId, sub.id, 'all-except', groupIds);
  await recordGroupChanges(db, accountId, sub, 'subscriber.removed_from_group', removed);
  await joinGroups(db, accountId, sub, groupIds);
}

/** One event per membership that changed, naming its group. */
async function recordGroupChanges(
  db: Db,
  accountId: string,
  sub: SubscriberRow,
  type: 'subscriber.added_to_group' | 'subscriber.removed_from_group',
  changed: { group_id: string }[],
  known?: Map<string, string>,
): Promise<void> {
  if (changed.length === 0) return;
  const names =
    known && changed.every((c) => known.has(c.group_id))
      ? known
      : await groupNames(
          db,
          accountId,
          changed.map((c) => c.group_id),
        );
  await recordEvents(db, accountId, groupChangeEvents(sub, type, changed, names));
}

function groupChangeEvents(
  sub: SubscriberRow,
  type: 'subscriber.added_to_group' | 'subscriber.removed_from_group',
  changed: { group_id: string }[],
  names: Map<string, string>,
): EventInput[] {
  return changed.map((c) => ({
    type,
    subscriberId: sub.id,
    data: { subscriber: { id: sub.id, email: sub.email }, group: { id: c.group_id, name: names.get(c.group_id) } },
  }));
}

async function groupNames(db: Db, accountId: string, ids: string[]): Promise<Map<string, string>> {
  return new Map((await groupRepo.names(db, accountId, ids)).map((r) => [r.id, r.name]));
}

function dropNulls(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
}

/** Subscribers in total and per status (MCP get_subscriber_count). */
export async function countByStatus(db: Db, accountId: string): Promise<Record<SubscriberStatus | 'total', number>> {
  const c = await repo.countByStatus(db, accountId);
  return { total: c.active + c.unsubscribed + c.bounced + c.complained, ...c };
}
