// Segments of one account: create, get, list, update, remove, and their members.
// A segment is a name and a validated rule tree; members are computed from the filter on every read, and
// counts are kept until the next write (see `counted`). Every function filters by accountId.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { Conflict, NotFound, Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import type { ListItem } from '../subscribers/subscribers.ts';
import { cachedRead } from '../../db/readCache.ts';
import { readsActivity, SegmentFilter, validateFor, whereMatches, type FieldTypes, type Filter } from './filter.ts';
import { offsetOf, pageOf, PageQuery, type Page } from '../paging.ts';
export type { PageQuery };
import { parseInput } from '../validation.ts';

const Name = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(255, 'Name must be at most 255 characters');

export const NewSegment = z.object({ name: Name, filter: SegmentFilter });
export type NewSegment = z.input<typeof NewSegment>;

export const SegmentUpdate = z
  .object({ name: Name.optional(), filter: SegmentFilter.optional() })
  .refine((u) => u.name !== undefined || u.filter !== undefined, {
    message: 'Give name and/or filter to change',
    path: ['name'],
  });
export type SegmentUpdate = z.input<typeof SegmentUpdate>;

export interface Segment {
  id: string;
  name: string;
  filter: Filter;
  subscriber_count: number;
  created_at: Date;
  updated_at: Date;
}

type Row = NonNullable<Awaited<ReturnType<typeof repo.findById>>>;

export async function create(db: Db, accountId: string, input: unknown): Promise<Segment> {
  const a = parseInput(NewSegment, input);
  const filter = await validateFor(db, accountId, a.filter);
  const row = await repo.insert(db, accountId, a.name, filter);
  if (!row) throw new Conflict('A segment with this name already exists');
  return (await withCounts(db, accountId, [row]))[0]!;
}

export async function get(db: Db, accountId: string, id: string): Promise<Segment> {
  const row = await repo.findById(db, accountId, id);
  if (!row) throw new NotFound('Segment not found');
  return (await withCounts(db, accountId, [row]))[0]!;
}

export async function list(db: Db, accountId: string, query: unknown = {}): Promise<Page<Segment>> {
  const p = parseInput(PageQuery, query);
  const rows = await repo.page(db, accountId, p.per_page, offsetOf(p));
  return pageOf(await withCounts(db, accountId, rows), p, await repo.count(db, accountId));
}

export async function update(db: Db, accountId: string, id: string, input: unknown): Promise<Segment> {
  const u = parseInput(SegmentUpdate, input);
  const filter = u.filter === undefined ? undefined : await validateFor(db, accountId, u.filter);
  const row = await repo.update(db, accountId, id, { name: u.name, filter });
  if (row === undefined) throw new NotFound('Segment not found');
  if (row === null) throw new Conflict('A segment with this name already exists');
  return (await withCounts(db, accountId, [row]))[0]!;
}

/**
 * How many subscribers a filter that is not saved yet matches now (the dashboard's live count while a
 * segment is edited): the same checks as create and update, the same compiled WHERE as a saved segment.
 */
export async function countDraft(db: Db, accountId: string, filter: unknown): Promise<number> {
  const f = await validateFor(db, accountId, filter);
  const types = await fields.definitions(db, accountId);
  const [n] = await counted(db, accountId, types, [f], async () => [
    await repo.countOne(db, accountId, whereMatches(f, types)),
  ]);
  return n!;
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await repo.remove(db, accountId, id))) throw new NotFound('Segment not found');
}

/** The subscribers the segment's filter matches now, newest first (list-item fields), and which segment it is. */
export async function members(
  db: Db,
  accountId: string,
  id: string,
  query: unknown = {},
): Promise<Page<ListItem> & { segment: { id: string; name: string } }> {
  const p = parseInput(PageQuery, query);
  const row = await repo.findById(db, accountId, id);
  if (!row) throw new NotFound('Segment not found');
  const types = await fields.definitions(db, accountId);
  const where = whereMatches(row.filter, types);
  const items = await repo.members(db, accountId, where, p.per_page, offsetOf(p));
  const [total] = await counted(db, accountId, types, [row.filter], async () => [
    await repo.countOne(db, accountId, where),
  ]);
  return { segment: { id: row.id, name: row.name }, ...pageOf(items, p, total) };
}

/**
 * For audiences (campaigns): a where-callback matching subscribers in ANY of the given segments of this
 * account. Throws Validation naming an id that is not one of the account's segments.
 */
export async function whereInAny(db: Db, accountId: string, ids: string[]): Promise<repo.Where> {
  return (await matchingAny(db, accountId, ids)).where;
}

/** whereInAny with the filters and field types it was compiled from (what `counted` keys a count by). */
export async function matchingAny(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<{ where: repo.Where; filters: Filter[]; types: FieldTypes }> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const rows = await repo.findByIds(db, accountId, unique);
  const missing = unique.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length > 0)
    throw new Validation(
      { segment_ids: missing.map((id) => `Segment not found: ${id}`) },
      `segment_ids: Segment not found: ${missing[0]}`,
    );
  const types = await fields.definitions(db, accountId);
  const wheres = rows.map((r) => whereMatches(r.filter, types));
  return { where: (eb) => eb.or(wheres.map((w) => w(eb))), filters: rows.map((r) => r.filter), types };
}

/**
 * The filters whose top level ANDs a rule on another table are counted one statement each (that rule then
 * runs as one join, see repo.countOne: 7.9 s → 0.95 s for one such segment at a million subscribers, under
 * load); the others together in one pass over the account's subscribers, one count(*) filter (…) each.
 */
async function withCounts(db: Db, accountId: string, rows: Row[]): Promise<Segment[]> {
  if (rows.length === 0) return [];
  const types: FieldTypes = await fields.definitions(db, accountId);
  const counts = await counted(
    db,
    accountId,
    types,
    rows.map((r) => r.filter),
    async () => {
      const wheres = rows.map((r) => whereMatches(r.filter, types));
      const joined = rows.map((r) => joinsAtTop(r.filter));
      const together = wheres.filter((_, i) => !joined[i]);
      const [pass, ...alone] = await Promise.all([
        repo.countMatching(db, accountId, together),
        ...wheres.map((w, i) => (joined[i] ? repo.countOne(db, accountId, w) : Promise.resolve(0))),
      ]);
      let next = 0;
      return rows.map((_, i) => (joined[i] ? alone[i]! : pass[next++]!));
    },
  );
  return rows.map((r, i) => ({
    id: r.id,
    name: r.name,
    filter: r.filter,
    subscriber_count: counts[i]!,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/**
 * Counting is what a segment costs at scale (one pass over the account's subscribers: 0.2–1 s at a
 * million), so counts are kept until the next write this process sees (db/readCache.ts), and concurrent
 * askers share one count; at most a minute, as rules on dates move with the clock. A filter with a rule on
 * campaign activity is always counted afresh: opens and clicks recorded by another instance do not reach
 * this process's change clock.
 */
const COUNT_MAX_AGE_MS = 60_000;

export async function counted(
  db: Db,
  accountId: string,
  types: FieldTypes,
  filters: Filter[],
  count: () => Promise<number[]>,
  /** what else the count depends on (an audience's groups) */
  also: unknown = null,
): Promise<number[]> {
  if (filters.some(readsActivity)) return count();
  const key = JSON.stringify([accountId, [...types], filters, also]);
  const load = async () => ({ counts: await count() });
  return (await cachedRead(db, 'segment counts', key, load, { maxAgeMs: COUNT_MAX_AGE_MS, maxEntries: 1000 })).counts;
}

const OTHER_TABLES = new Set(['group', 'campaign_opened', 'campaign_clicked']);

/** A rule on memberships or events that the filter's top level ANDs (so it can be a join). */
function joinsAtTop(f: Filter): boolean {
  return (
    (f.match === 'all' || f.rules.length === 1) && f.rules.some((r) => !('match' in r) && OTHER_TABLES.has(r.field))
  );
}
