// The subscribers list, its bulk actions and its export narrowed to one segment's members: the list's own
// filters (search, status, group, paging) with the segment's rules as one more condition, in one query.
// Used by the dashboard's list, where a segment is one more filter.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { NotFound } from '../errors.ts';
import * as bulk from '../subscribers/bulk.ts';
import { exportCsv as subscribersCsv } from '../subscribers/export.ts';
import * as fields from '../subscribers/fields.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { whereMatches } from './filter.ts';
import { parseInput } from '../validation.ts';

const SegmentId = z.guid('segment_id must be a UUID').optional();

export const SegmentListQuery = subscribers.ListQuery.extend({ segment_id: SegmentId });
export type SegmentListQuery = z.input<typeof SegmentListQuery>;

/** subscribers.list with `source` on each row and, given a segment of this account, only its members. */
export async function list(db: Db, accountId: string, query: unknown) {
  const { segment_id, ...rest } = parseInput(SegmentListQuery, query);
  return subscribers.list(db, accountId, rest, {
    withSource: true,
    where: await conditionOf(db, accountId, segment_id),
  });
}

/** A bulk action's body with `filter.segment_id`; the rest is bulk.BulkAction's, checked by bulk.apply. */
export const SegmentBulkAction = z.object({ filter: z.object({ segment_id: SegmentId }).loose().optional() }).loose();
export type SegmentBulkAction = z.input<typeof SegmentBulkAction>;

/** bulk.apply, where `filter.segment_id` also limits a filter selection to the segment's members. */
export async function bulkApply(db: Db, accountId: string, input: unknown) {
  const { filter } = parseInput(SegmentBulkAction, input);
  const where = await conditionOf(db, accountId, filter?.segment_id);
  return bulk.apply(db, accountId, input as bulk.BulkAction, { where });
}

export const SegmentExportQuery = z.object({ segment_id: SegmentId }).loose();
export type SegmentExportQuery = z.input<typeof SegmentExportQuery>;

/** The CSV export of the list's filter, `segment_id` included. */
export async function exportCsv(db: Db, accountId: string, query: unknown) {
  const { segment_id } = parseInput(SegmentExportQuery, query);
  const where = await conditionOf(db, accountId, segment_id);
  return subscribersCsv(db, accountId, query as bulk.Filter, { where });
}

/** The segment's rules on the list's rows (`subscribers as s`); a missing or foreign segment is NotFound. */
async function conditionOf(db: Db, accountId: string, segmentId: string | undefined) {
  if (segmentId === undefined) return undefined;
  const segment = await repo.findById(db, accountId, segmentId.toLowerCase());
  if (!segment) throw new NotFound('Segment not found');
  return whereMatches(segment.filter, await fields.definitions(db, accountId), 's');
}
