// MCP tools for automations (spec scopes automations:read / automations:write): list, get, activity,
// create, delete. Each parses its arguments and calls src/domain/automations/.
import { z } from 'zod';
import * as automations from '../../../domain/automations/automations.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const AutomationId = z
  .guid('automation_id must be a UUID')
  .describe('The automation id (UUID), as returned by list_automations or create_automation.');

const listAutomations = defineTool({
  name: 'list_automations',
  title: 'List automations',
  scope: 'automations:read',
  description:
    'List the automations of the account, newest first, 25 per page by default. Each is {id, name, enabled, trigger, steps, ' +
    'stats {started, active, completed, canceled, failed, emails_sent, opens, unique_opens, clicks, unique_clicks, unsubscribes, bounces, complaints, soft_bounces}, created_at, updated_at}. Use get_automation_activity ' +
    'to see the individual runs.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Automation),
  input: z.object({ ...PageArgs }),
  async run(ctx, a) {
    return listResult(await automations.list(ctx.db, ctx.key.accountId, a));
  },
});

const getAutomation = defineTool({
  name: 'get_automation',
  title: 'Get an automation',
  scope: 'automations:read',
  description:
    'Get one automation with its trigger, its steps and its stats (runs started, active, completed, canceled, failed; emails sent; ' +
    'opens, unique_opens, clicks, unique_clicks of its emails when the account tracks them; unsubscribes, bounces, complaints and soft_bounces of its emails). ' +
    'Fails with "Automation not found" for an unknown automation_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Automation),
  input: z.object({ automation_id: AutomationId }),
  async run(ctx, a) {
    return { data: await automations.get(ctx.db, ctx.key.accountId, a.automation_id) };
  },
});

const getAutomationActivity = defineTool({
  name: 'get_automation_activity',
  title: 'List the runs of an automation',
  scope: 'automations:read',
  description:
    'List the runs of one automation, newest first, 25 per page by default: one run per subscriber and triggering event, with ' +
    'status (active, completed, canceled, failed), current_step {path, type} while active, next_run_at (when a delay ends) and ' +
    'the history of what each step did. Filter with status. Fails with "Automation not found" for an unknown automation_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.AutomationRun),
  input: z.object({
    automation_id: AutomationId,
    status: z
      .enum(automations.RUN_STATUSES, { error: 'status must be one of: active, completed, canceled, failed' })
      .optional()
      .describe('Only runs with this status.'),
    ...PageArgs,
  }),
  async run(ctx, { automation_id, ...q }) {
    return listResult(await automations.activity(ctx.db, ctx.key.accountId, automation_id, q));
  },
});

const createAutomation = defineTool({
  name: 'create_automation',
  title: 'Create an automation',
  scope: 'automations:write',
  description:
    'Create an automation: a trigger that starts a run per subscriber, and the steps each run takes. Triggers: ' +
    '{type:"subscriber_created", source?: api|import|form|dashboard|mcp}, {type:"joined_group", group_id}, {type:"form_submitted", form_id}, ' +
    '{type:"campaign_opened", campaign_id?}, {type:"link_clicked", campaign_id?, url?} (opens/clicks of campaign emails only), {type:"date_anniversary", field} (a date custom field; ' +
    'runs on its month and day each year). Steps: {type:"delay", amount, unit: minutes|hours|days}, ' +
    '{type:"send_email", subject, content_html, from_name?, from_email?} (Liquid such as {{ subscriber.first_name }}; an unsubscribe link ' +
    'is added when missing; instead of content_html give content_format "html"|"mjml"|"blocks" and content_source, rendered on save), {type:"add_to_group"|"remove_from_group", group_id}, {type:"update_field", field, value} (first_name, last_name, ' +
    'phone or a custom field key), {type:"condition", filter (a segment rule tree), then: [steps], else: [steps]}. ' +
    'Example welcome series: trigger {type:"joined_group", group_id}, steps [send_email, {type:"delay", amount:2, unit:"days"}, send_email]. ' +
    "Only events after creation start runs; an unsubscribed or bounced subscriber's run stops before its next email.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  output: out.single(out.Automation),
  input: automations.NewAutomation,
  async run(ctx, a) {
    return { data: await automations.create(ctx.db, ctx.key.accountId, a) };
  },
});

const deleteAutomation = defineTool({
  name: 'delete_automation',
  title: 'Delete an automation',
  scope: 'automations:write',
  description:
    'Delete an automation and its runs: runs waiting on a delay are canceled and no further email is sent for it. This cannot be ' +
    'undone. Fails with "Automation not found" for an unknown automation_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ automation_id: AutomationId }),
  async run(ctx, a) {
    await automations.remove(ctx.db, ctx.key.accountId, a.automation_id);
    return { data: { id: a.automation_id, deleted: true } };
  },
});

export const automationTools: Tool[] = [
  listAutomations,
  getAutomation,
  getAutomationActivity,
  createAutomation,
  deleteAutomation,
];
