// MCP tools for groups (spec scopes groups:read / groups:write). Membership of one subscriber is changed by
// assign_/unassign_subscriber_to_group, which the spec puts under subscribers:write (tools/subscribers.ts).
import { z } from 'zod';
import * as groups from '../../../domain/subscribers/groups.ts';
import { STATUSES } from '../../../domain/subscribers/subscribers.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const GroupId = z.guid('group_id must be a UUID').describe('The group id (UUID), as returned by list_groups.');
const Name = groups.GroupName.describe('Group name, unique in the account (case-insensitive), 1–255 characters.');

const listGroups = defineTool({
  name: 'list_groups',
  title: 'List groups',
  scope: 'groups:read',
  description:
    'List the groups of the account, sorted by name, 25 per page by default. Each group is {id, name, subscriber_count, active_count, ' +
    'created_at, updated_at}: subscriber_count counts all members, active_count only those who can receive email. Use search to match ' +
    'part of a name (case-insensitive). Group ids are what campaigns, automations and assign_subscriber_to_group take.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Group),
  input: z.object({
    ...PageArgs,
    search: z.string().trim().max(255).optional().describe('Case-insensitive text matched anywhere in the group name.'),
  }),
  async run(ctx, a) {
    return listResult(await groups.list(ctx.db, ctx.key.accountId, a));
  },
});

const getGroupSubscribers = defineTool({
  name: 'get_group_subscribers',
  title: 'List the subscribers of a group',
  scope: 'groups:read',
  description:
    'List the members of one group, newest first, 25 per page by default; each item has id, email, first_name, last_name, status and ' +
    'created_at. Filter by status (e.g. active to see who would receive a campaign) or by a search term on email and names. ' +
    'Fails with "Group not found" for an unknown group_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.SubscriberListItem),
  input: z.object({
    group_id: GroupId,
    ...PageArgs,
    status: z
      .enum(STATUSES, { error: `status must be one of: ${STATUSES.join(', ')}` })
      .optional()
      .describe('Only members with this status: active, unsubscribed, bounced or complained.'),
    search: z
      .string()
      .trim()
      .max(254)
      .optional()
      .describe('Case-insensitive text matched anywhere in email, first_name or last_name.'),
  }),
  async run(ctx, { group_id, ...q }) {
    return listResult(await groups.members(ctx.db, ctx.key.accountId, group_id, q));
  },
});

const createGroup = defineTool({
  name: 'create_group',
  title: 'Create a group',
  scope: 'groups:write',
  description:
    'Create an empty group with a name that is not yet used in the account (compared case-insensitively; a duplicate fails with ' +
    '"A group with this name already exists"). Returns the group with its id; add members with assign_subscriber_to_group or ' +
    'import_subscribers_to_group.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  output: out.single(out.Group),
  input: z.object({ name: Name }),
  async run(ctx, a) {
    return { data: await groups.create(ctx.db, ctx.key.accountId, a) };
  },
});

const updateGroup = defineTool({
  name: 'update_group',
  title: 'Rename a group',
  scope: 'groups:write',
  description:
    'Rename a group; its members are unchanged. The new name must not be used by another group of the account. ' +
    'Fails with "Group not found" for an unknown group_id.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Group),
  input: z.object({ group_id: GroupId, name: Name }),
  async run(ctx, a) {
    return { data: await groups.update(ctx.db, ctx.key.accountId, a.group_id, { name: a.name }) };
  },
});

const deleteGroup = defineTool({
  name: 'delete_group',
  title: 'Delete a group',
  scope: 'groups:write',
  description:
    'Delete a group permanently. Its subscribers are NOT deleted; they only lose this membership. Campaigns, segments and automations ' +
    'that referred to the group no longer match anyone through it. Fails with "Group not found" for an unknown group_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ group_id: GroupId }),
  async run(ctx, a) {
    await groups.remove(ctx.db, ctx.key.accountId, a.group_id);
    return { data: { id: a.group_id, deleted: true } };
  },
});

export const groupTools: Tool[] = [listGroups, getGroupSubscribers, createGroup, updateGroup, deleteGroup];
