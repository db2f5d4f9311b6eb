// MCP tools for subscribers (spec scopes subscribers:read / subscribers:write): each is a zod input with
// described fields and one call into src/domain. update_subscriber is the REST update; add_subscriber is
// the upsert described in docs/mcp.md. Group membership and import tools live here too, under subscribers:write.
import { z } from 'zod';
import * as activity from '../../../domain/subscribers/activity.ts';
import * as forget from '../../../domain/forget/forget.ts';
import * as groups from '../../../domain/subscribers/groups.ts';
import * as subscribers from '../../../domain/subscribers/subscribers.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';
import { pick } from '../../pick.ts';
import { getSingleImport, importSubscribersToGroup } from './imports.ts';
import { SUBSCRIBER_VIEW } from '../../subscriberViews.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

const SubscriberId = z
  .guid('subscriber_id must be a UUID')
  .describe('The subscriber id (UUID), as returned by list_subscribers or get_subscriber.');
const GroupId = z.guid('group_id must be a UUID').describe('The group id (UUID), as returned by list_groups.');

const { get: FULL_FIELDS, upsert: UPDATE_FIELDS } = SUBSCRIBER_VIEW;

const U = subscribers.SubscriberUpdate.shape;
const A = subscribers.UpsertSubscriber.shape;

const listSubscribers = defineTool({
  name: 'list_subscribers',
  title: 'List subscribers',
  scope: 'subscribers:read',
  description:
    'List the subscribers of the account, newest first, 25 per page by default. Filter by status (active, unsubscribed, bounced, complained), ' +
    'by a search term matched case-insensitively against email, first name and last name, or by group_id. Each item has id, email, first_name, ' +
    'last_name, status and created_at; use get_subscriber for custom fields, groups and notes. meta tells the total and the last page.',
  annotations: READ,
  output: out.page(out.SubscriberListItem),
  input: z.object({
    ...PageArgs,
    status: subscribers.ListQuery.shape.status.describe(
      'Only subscribers with this status: active, unsubscribed, bounced or complained.',
    ),
    search: z
      .string()
      .trim()
      .max(254)
      .optional()
      .describe('Case-insensitive text matched anywhere in email, first_name or last_name.'),
    group_id: GroupId.optional().describe('Only subscribers who are members of this group (UUID).'),
  }),
  async run(ctx, a) {
    return listResult(await subscribers.list(ctx.db, ctx.key.accountId, a));
  },
});

const getSubscriber = defineTool({
  name: 'get_subscriber',
  title: 'Get a subscriber',
  scope: 'subscribers:read',
  description:
    'Get one subscriber by subscriber_id or by email (case-insensitive), with phone, status, custom_fields, the groups it belongs to ({id, name}) ' +
    'and notes. Pass exactly one of the two; if both are given, subscriber_id wins. Fails with "Subscriber not found" when no such subscriber exists in this account.',
  annotations: READ,
  output: out.single(out.SubscriberFull),
  input: z
    .object({
      subscriber_id: SubscriberId.optional(),
      email: z
        .string()
        .trim()
        .min(1)
        .max(254)
        .optional()
        .describe('The subscriber email address (compared case-insensitively).'),
    })
    .refine((a) => a.subscriber_id !== undefined || a.email !== undefined, 'subscriber_id or email is required'),
  async run(ctx, a) {
    const by = a.subscriber_id !== undefined ? { id: a.subscriber_id } : { email: a.email! };
    return { data: pick(await subscribers.getFull(ctx.db, ctx.key.accountId, by), FULL_FIELDS) };
  },
});

const getSubscriberCount = defineTool({
  name: 'get_subscriber_count',
  title: 'Count subscribers',
  scope: 'subscribers:read',
  description:
    'Count the subscribers of the account. Without arguments it returns {total, active, unsubscribed, bounced, complained}; with status it ' +
    'returns {status, count} for that status only. Cheaper than paging through list_subscribers when only numbers are needed.',
  annotations: READ,
  output: out.single(out.SubscriberCounts),
  input: z.object({
    status: subscribers.ListQuery.shape.status.describe(
      'Count only subscribers with this status: active, unsubscribed, bounced or complained.',
    ),
  }),
  async run(ctx, a) {
    const counts = await subscribers.countByStatus(ctx.db, ctx.key.accountId);
    return { data: a.status ? { status: a.status, count: counts[a.status] } : counts };
  },
});

const getSubscriberActivity = defineTool({
  name: 'get_subscriber_activity',
  title: 'Get subscriber activity',
  scope: 'subscribers:read',
  description:
    "A subscriber's history from the event log, newest first: created, updated, unsubscribed, group joins and leaves, emails sent, opened, " +
    'clicked and bounced, form submissions. Each item is {id, type, data, created_at}. Filter with type (for example email.opened). ' +
    'Fails with "Subscriber not found" for an unknown subscriber_id.',
  annotations: READ,
  output: out.page(out.ActivityItem),
  input: z.object({
    subscriber_id: SubscriberId,
    ...PageArgs,
    type: activity.ActivityQuery.shape.type.describe(
      'Only events of this type, e.g. subscriber.updated, email.opened, email.clicked.',
    ),
  }),
  async run(ctx, a) {
    return listResult(
      await activity.ofSubscriber(ctx.db, ctx.key.accountId, a.subscriber_id, {
        page: a.page,
        per_page: a.per_page,
        type: a.type,
      }),
    );
  },
});

const addSubscriber = defineTool({
  name: 'add_subscriber',
  title: 'Add or update a subscriber',
  scope: 'subscribers:write',
  description:
    'Add a subscriber, or update the one that already has this email (case-insensitive match). A new subscriber is created active unless ' +
    'status says unsubscribed, and counts against the plan limit ("Subscriber limit reached"). For an existing one only the fields you pass ' +
    'change: custom_fields are merged and groups are added (never removed). custom_fields keys must be fields defined in the account. ' +
    'The result is the subscriber with created=true when it was new.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.SubscriberWritten.extend({ created: z.boolean() })),
  input: z.object({
    email: A.email.describe('Email address (required); trimmed and checked, at most 254 characters.'),
    first_name: A.first_name.describe('First name.'),
    last_name: A.last_name.describe('Last name.'),
    phone: A.phone.describe('Phone number, preferably a plus sign followed by digits.'),
    status: A.status.describe('active (default for new subscribers) or unsubscribed.'),
    groups: A.groups.describe('Group ids (UUIDs) to add the subscriber to; existing memberships are kept.'),
    custom_fields: A.custom_fields.describe(
      'Custom field values by field key, e.g. {"company": "Acme"}; merged into existing values.',
    ),
  }),
  async run(ctx, a) {
    const { subscriber, created } = await subscribers.upsertByEmail(ctx.db, ctx.key.accountId, a, 'mcp');
    return { data: { ...pick(subscriber, UPDATE_FIELDS), created } };
  },
});

const updateSubscriber = defineTool({
  name: 'update_subscriber',
  title: 'Update a subscriber',
  scope: 'subscribers:write',
  description:
    'Change a subscriber by subscriber_id; only the fields you pass change. status may be active or unsubscribed (bounced and complained are set ' +
    'by bounce processing). custom_fields are merged into the existing values. group_ids REPLACES all memberships with exactly this list ' +
    '(use assign_subscriber_to_group to add one group). The email cannot be changed.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.SubscriberWritten),
  input: z.object({
    subscriber_id: SubscriberId,
    first_name: U.first_name.describe('New first name (null clears it).'),
    last_name: U.last_name.describe('New last name (null clears it).'),
    phone: U.phone.describe('New phone number (null clears it).'),
    status: U.status.describe('active or unsubscribed.'),
    group_ids: U.group_ids.describe('Group ids (UUIDs): replaces all current memberships with exactly this list.'),
    custom_fields: U.custom_fields.describe(
      'Custom field values by key, merged into the existing ones (null removes a value).',
    ),
  }),
  async run(ctx, { subscriber_id, ...changes }) {
    return { data: pick(await subscribers.update(ctx.db, ctx.key.accountId, subscriber_id, changes), UPDATE_FIELDS) };
  },
});

const deleteSubscriber = defineTool({
  name: 'delete_subscriber',
  title: 'Delete a subscriber',
  scope: 'subscribers:write',
  description:
    'Permanently delete a subscriber by subscriber_id, with its engagement history, custom field values and group memberships. ' +
    'To stop mailing someone but keep the record, use update_subscriber with status unsubscribed instead. To also erase the address ' +
    'everywhere (GDPR), use forget_subscriber.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ subscriber_id: SubscriberId }),
  async run(ctx, a) {
    await subscribers.remove(ctx.db, ctx.key.accountId, a.subscriber_id);
    return { data: { id: a.subscriber_id, deleted: true } };
  },
});

const forgetSubscriber = defineTool({
  name: 'forget_subscriber',
  title: 'Forget a subscriber (erase personal data)',
  scope: 'subscribers:write',
  description:
    'Right-to-be-forgotten erasure: deletes the subscriber and erases the email address everywhere it appears (send records, webhook logs, ' +
    'import rows, pending sign-ups, captured mail). Only a salted hash is kept so that later imports skip the address; adding it again ' +
    'explicitly (add_subscriber) is still possible. Irreversible.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Forgotten),
  input: z.object({ subscriber_id: SubscriberId }),
  async run(ctx, a) {
    return { data: await forget.forgetSubscriber(ctx.db, ctx.config.secret, ctx.key.accountId, a.subscriber_id) };
  },
});

const assignToGroup = defineTool({
  name: 'assign_subscriber_to_group',
  title: 'Add a subscriber to a group',
  scope: 'subscribers:write',
  description:
    'Add one subscriber to one group. Adding a subscriber who is already a member changes nothing (added=false). ' +
    'Fails with "Subscriber not found" or "Group not found" when either id is unknown in this account. Use list_groups to find group ids.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Assigned),
  input: z.object({ subscriber_id: SubscriberId, group_id: GroupId }),
  async run(ctx, a) {
    return { data: await groups.assign(ctx.db, ctx.key.accountId, a.group_id, a.subscriber_id) };
  },
});

const unassignFromGroup = defineTool({
  name: 'unassign_subscriber_from_group',
  title: 'Remove a subscriber from a group',
  scope: 'subscribers:write',
  description:
    'Remove one subscriber from one group; the subscriber itself stays. Removing a non-member changes nothing (removed=false). ' +
    'Fails with "Subscriber not found" or "Group not found" when either id is unknown in this account.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Unassigned),
  input: z.object({ subscriber_id: SubscriberId, group_id: GroupId }),
  async run(ctx, a) {
    return { data: await groups.unassign(ctx.db, ctx.key.accountId, a.group_id, a.subscriber_id) };
  },
});

// spec scope table order: read tools, then write tools
export const subscriberTools: Tool[] = [
  listSubscribers,
  getSubscriber,
  getSubscriberCount,
  getSubscriberActivity,
  getSingleImport,
  addSubscriber,
  updateSubscriber,
  deleteSubscriber,
  forgetSubscriber,
  assignToGroup,
  unassignFromGroup,
  importSubscribersToGroup,
];
