// MCP tools for segments. The spec's scope table puts them under subscribers: list_segments and
// get_subscribers_in_segment need subscribers:read, update_segment and delete_segment subscribers:write.
// Segments are created through REST (POST /api/v1/external/segments) until the dashboard exists.
import { z } from 'zod';
import * as segments from '../../../domain/segments/segments.ts';
import { SegmentFilter } from '../../../domain/segments/filter.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const SegmentId = z.guid('segment_id must be a UUID').describe('The segment id (UUID), as returned by list_segments.');

const FILTER_HELP =
  'A filter is {"match":"all"|"any","rules":[...]} where each rule is {field, operator, value} or a nested {match, rules} group ' +
  '(at most 5 levels, 100 rules). Fields: email, first_name, last_name, phone (text: eq, neq, contains, not_contains, starts_with, ' +
  'ends_with, in, not_in, is_set, is_not_set; case-insensitive), status (eq, neq, in, not_in), created_at (before, after, gt, gte, lt, ' +
  'lte with an ISO date; within_last_days with a number), custom_fields.<key> (by the field type: text as above; number eq/neq/gt/gte/' +
  'lt/lte/in/not_in; date YYYY-MM-DD eq/neq/before/after/gt/gte/lt/lte/within_last_days; boolean eq/neq; all also is_set/is_not_set), ' +
  'group (value = group id; eq/in = member, neq/not_in = not a member), campaign_opened / campaign_clicked (value = campaign id; ' +
  'eq = did, neq = did not). Example: {"match":"all","rules":[{"field":"status","operator":"eq","value":"active"},' +
  '{"field":"custom_fields.plan","operator":"in","value":["pro","team"]}]}.';

const listSegments = defineTool({
  name: 'list_segments',
  title: 'List segments',
  scope: 'subscribers:read',
  description:
    'List the segments of the account, newest first, 25 per page by default. Each segment is {id, name, filter, subscriber_count, ' +
    'created_at, updated_at}; subscriber_count is how many subscribers (any status) the filter matches right now. Segment ids are ' +
    'what campaigns take as segment_ids and what get_subscribers_in_segment lists.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Segment),
  input: z.object({ ...PageArgs }),
  async run(ctx, a) {
    return listResult(await segments.list(ctx.db, ctx.key.accountId, a));
  },
});

const getSubscribersInSegment = defineTool({
  name: 'get_subscribers_in_segment',
  title: 'List the subscribers in a segment',
  scope: 'subscribers:read',
  description:
    'List the subscribers a segment matches right now (computed from its filter on every call), newest first, 25 per page by default; ' +
    'each item has id, email, first_name, last_name, status and created_at. Fails with "Segment not found" for an unknown segment_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.SubscriberListItem),
  input: z.object({ segment_id: SegmentId, ...PageArgs }),
  async run(ctx, { segment_id, ...paging }) {
    return listResult(await segments.members(ctx.db, ctx.key.accountId, segment_id, paging));
  },
});

const updateSegment = defineTool({
  name: 'update_segment',
  title: 'Update a segment',
  scope: 'subscribers:write',
  description:
    "Rename a segment and/or replace its filter (give at least one). The filter is validated against the account's custom fields " +
    'and groups; a problem names its place, e.g. "filter.rules.0.operator: Operator gt is not valid for field email". ' +
    FILTER_HELP +
    ' Returns the segment with its new subscriber_count. Fails with "Segment not found" for an unknown segment_id.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Segment),
  input: z.object({
    segment_id: SegmentId,
    name: z
      .string()
      .trim()
      .min(1, 'Name is required')
      .max(255, 'Name must be at most 255 characters')
      .optional()
      .describe('New name, unique in the account (case-insensitive).'),
    filter: SegmentFilter.optional().describe('The new filter; replaces the old one entirely.'),
  }),
  async run(ctx, { segment_id, ...changes }) {
    return { data: await segments.update(ctx.db, ctx.key.accountId, segment_id, changes) };
  },
});

const deleteSegment = defineTool({
  name: 'delete_segment',
  title: 'Delete a segment',
  scope: 'subscribers:write',
  description:
    'Delete a segment permanently. Its subscribers are not touched (a segment is only a saved filter). Fails with "Segment not found" ' +
    'for an unknown segment_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ segment_id: SegmentId }),
  async run(ctx, a) {
    await segments.remove(ctx.db, ctx.key.accountId, a.segment_id);
    return { data: { id: a.segment_id, deleted: true } };
  },
});

export const segmentTools: Tool[] = [listSegments, getSubscribersInSegment, updateSegment, deleteSegment];
