// MCP tools for campaigns (spec scopes campaigns:read / campaigns:write): the same domain calls as
// /api/v1/external/campaigns, so the state rules and error texts ("Only draft campaigns can be updated",
// "Campaign is already scheduled") are the domain's.
import { z } from 'zod';
import * as abTests from '../../../domain/campaigns/abTests.ts';
import * as campaigns from '../../../domain/campaigns/campaigns.ts';
import * as resends from '../../../domain/campaigns/resends.ts';
import * as sendChecks from '../../../domain/campaigns/checks.ts';
import { RECIPIENT_FILTERS } from '../../../domain/campaigns/stats.ts';
import { starters } from '../../../domain/content/starters.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const CampaignId = z
  .guid('campaign_id must be a UUID')
  .describe('The campaign id (UUID), as returned by list_campaigns or create_campaign.');
const F = campaigns.Fields;
const Editable = {
  subject: F.subject.describe(
    'Subject line; Liquid allowed, e.g. "Hi {{ subscriber.first_name | default: \\"there\\" }}".',
  ),
  preview_text: F.preview_text.describe('Preheader text shown by mail clients after the subject.'),
  from_name: F.from_name.describe('Sender name; defaults to the account setting, then the server MAIL_FROM.'),
  from_email: F.from_email.describe('Sender address; defaults to the account setting, then the server MAIL_FROM.'),
  reply_to: F.reply_to.describe('Reply-To address; defaults to the account setting.'),
  content_html: F.content_html.describe(
    'HTML body with Liquid: {{ subscriber.email }}, {{ subscriber.first_name }}, {{ subscriber.custom_fields.<key> }}, {{ campaign.name }}, ' +
      '{{ unsubscribe_url }}. An unsubscribe footer is appended when the body has no {{ unsubscribe_url }}.',
  ),
  content_text: F.content_text.describe('Plain-text body (Liquid allowed); derived from content_html when omitted.'),
  content_format: F.content_format.describe(
    'What content_source is: "html", "mjml" or "blocks" (a block document, rendered to content_html on save). ' +
      'Give content_format and content_source instead of content_html.',
  ),
  content_source: F.content_source.describe(
    'The source in content_format. For "blocks": the document {"version":1,"style":{...},"blocks":[{"id","type",...}]} ' +
      '(as an object or JSON text); block types heading, text, image, button, columns, divider, spacer, social, html, footer. ' +
      'See docs/campaigns.md.',
  ),
  group_ids: F.group_ids.describe('Groups whose active members receive the campaign (UUIDs from list_groups).'),
  segment_ids: F.segment_ids.describe(
    'Segments whose active members receive the campaign (UUIDs from list_segments). Overlaps are sent once.',
  ),
  ab_test: F.ab_test.describe(
    'A/B test: {variants: 2-5 of {subject?, preview_text?, from_name?, content_format?, content_source?} (fields left out ' +
      'are the campaign\'s), test_percent (share of the audience split evenly among the variants), winner_by ("opens": human ' +
      'opens only, "clicks", or "manual"), wait_hours (1-168)}. After the wait the winner goes to the rest. null removes the test.',
  ),
  track_opens: F.track_opens.describe("Count opens with a pixel; a new campaign takes the account's tracking setting."),
  track_clicks: F.track_clicks.describe(
    "Count clicks through tracked links; a new campaign takes the account's tracking setting.",
  ),
};

const getCampaign = defineTool({
  name: 'get_campaign',
  title: 'Get a campaign',
  scope: 'campaigns:read',
  description:
    'Get one campaign with its content, audience (group_ids, segment_ids), status (draft, scheduled, sending, paused, sent, cancelled), ' +
    'scheduled_at/started_at/finished_at and stats {recipients, sent, failed, opens, unique_opens, clicks, unique_clicks, unsubscribes, ' +
    'bounces, complaints, skipped, interrupted, pending}; with an A/B test, ab_test {variants[i].stats {sent, human_opens, clicks, ' +
    'unsubscribes, bounces}, winner (index or null), confidence}; and checks {ok, checks: [{id, level, ok, message}]}: what the ' +
    'campaign passes and fails before it can be sent (sending domain, DMARC, postal address, unsubscribe link, links, size, ' +
    'subject, preview text, text part); a failed check of level "block" makes schedule_campaign fail. ' +
    'Fails with "Campaign not found" for an unknown campaign_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.single(out.CampaignWithChecks),
  input: z.object({ campaign_id: CampaignId }),
  async run(ctx, a) {
    const campaign = await campaigns.get(ctx.db, ctx.key.accountId, a.campaign_id);
    return {
      data: { ...campaign, checks: await sendChecks.ofCampaign(ctx.db, ctx.config, ctx.key.accountId, campaign.id) },
    };
  },
});

const listCampaigns = defineTool({
  name: 'list_campaigns',
  title: 'List campaigns',
  scope: 'campaigns:read',
  description:
    'List the campaigns of the account, newest first, 25 per page by default, each with its status and stats. ' +
    'Filter by status (draft, scheduled, sending, sent, cancelled) to find, for example, drafts still to schedule.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Campaign),
  input: z.object({
    ...PageArgs,
    status: z
      .enum(campaigns.STATUSES, { error: `status must be one of: ${campaigns.STATUSES.join(', ')}` })
      .optional()
      .describe('Only campaigns in this state.'),
  }),
  async run(ctx, a) {
    return listResult(await campaigns.list(ctx.db, ctx.key.accountId, a));
  },
});

const getCampaignSubscribers = defineTool({
  name: 'get_campaign_subscribers',
  title: 'List the recipients of a campaign',
  scope: 'campaigns:read',
  description:
    'List who a campaign was (or is being) sent to, from its send ledger: each item has the subscriber {id, email, first_name, last_name, ' +
    'status} and the delivery state (queued, sending, sent, failed, skipped, interrupted), attempts, message_id, last_error, sent_at, ' +
    'opens, clicks, opened_at, clicked_at. Filter: sent, failed, opened, unopened, clicked, unsubscribed, bounced or complained. ' +
    'Empty until the campaign starts sending.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.CampaignRecipient),
  input: z.object({
    campaign_id: CampaignId,
    filter: z
      .enum(RECIPIENT_FILTERS, { error: `filter must be one of: ${RECIPIENT_FILTERS.join(', ')}` })
      .optional()
      .describe('Only recipients in this situation.'),
    ...PageArgs,
  }),
  async run(ctx, { campaign_id, ...q }) {
    return listResult(await campaigns.recipients(ctx.db, ctx.key.accountId, campaign_id, q));
  },
});

const createCampaign = defineTool({
  name: 'create_campaign',
  title: 'Create a campaign',
  scope: 'campaigns:write',
  description:
    'Create a draft email campaign. Only name is required now; subject, content_html and at least one group or segment are required ' +
    'before schedule_campaign. Liquid errors in subject or content are reported at once. Returns the campaign with its id.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  output: out.single(out.Campaign),
  input: z.object({
    name: campaigns.Name.describe('Internal name of the campaign (not shown to recipients).'),
    ...Editable,
    template_id: z
      .guid('template_id must be a UUID')
      .optional()
      .describe(
        'Start the content from a block template (content_format "blocks"), unless content is given. Starters: ' +
          starters()
            .map((s) => `${s.name} ${s.id}`)
            .join(', ') +
          '; or a template the account saved (its id from GET /api/v1/external/templates).',
      ),
    resend_of: z
      .guid('resend_of must be a UUID')
      .optional()
      .describe(
        'A sent campaign to resend to who did not open it (human opens only): the draft copies its content; name and subject ' +
          'may be given, other fields are ignored.',
      ),
  }),
  async run(ctx, { resend_of, ...a }) {
    if (resend_of)
      return {
        data: await resends.resend(ctx.db, ctx.key.accountId, resend_of, {
          name: a.name,
          subject: a.subject ?? undefined,
        }),
      };
    return { data: await campaigns.create(ctx.db, ctx.key.accountId, a) };
  },
});

const updateCampaign = defineTool({
  name: 'update_campaign',
  title: 'Update a draft campaign',
  scope: 'campaigns:write',
  description:
    'Change fields of a draft campaign; only the fields given change (group_ids/segment_ids replace the lists). A campaign that is ' +
    'scheduled, sending, sent or cancelled cannot be changed: the call fails with "Only draft campaigns can be updated" ' +
    '(cancel_campaign turns a scheduled campaign back into a draft).',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Campaign),
  input: z.object({
    campaign_id: CampaignId,
    name: campaigns.Name.optional().describe('New internal name.'),
    ...Editable,
    ab_winner: abTests.WinnerInput.shape.variant
      .optional()
      .describe(
        'Pick the winning variant (index) of a sending A/B test by hand: the rest get it at once. Other fields are then ignored.',
      ),
  }),
  async run(ctx, { campaign_id, ab_winner, ...changes }) {
    if (ab_winner !== undefined) {
      await abTests.pickWinner(ctx.db, ctx.key.accountId, campaign_id, { variant: ab_winner });
      return { data: await campaigns.get(ctx.db, ctx.key.accountId, campaign_id) };
    }
    return { data: await campaigns.update(ctx.db, ctx.key.accountId, campaign_id, changes) };
  },
});

const deleteCampaign = defineTool({
  name: 'delete_campaign',
  title: 'Delete a campaign',
  scope: 'campaigns:write',
  description:
    'Delete a campaign and its send ledger permanently. Refused while the campaign is sending (cancel it first). ' +
    'Fails with "Campaign not found" for an unknown campaign_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ campaign_id: CampaignId }),
  async run(ctx, a) {
    await campaigns.remove(ctx.db, ctx.key.accountId, a.campaign_id);
    return { data: { id: a.campaign_id, deleted: true } };
  },
});

const scheduleCampaign = defineTool({
  name: 'schedule_campaign',
  title: 'Send or schedule a campaign',
  scope: 'campaigns:write',
  description:
    'Send a draft campaign now (delivery "instant": status becomes sending) or at a future time (delivery "scheduled" with scheduled_at, ' +
    'ISO 8601 with a UTC offset such as 2026-12-01T09:00:00+01:00). Requires subject, content_html and at least one group or segment. ' +
    'The audience (active members, each once, minus suppressed addresses) is fixed when sending starts. A campaign that is already ' +
    'scheduled fails with "Campaign is already scheduled"; cancel_campaign first to change it. A campaign that fails a blocking ' +
    'check before sending (get_campaign shows them) fails with "Campaign failed the checks before sending: <ids>" and data.checks, ' +
    'the failed checks with what to do about each.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  output: out.single(out.Campaign),
  input: z.object({
    campaign_id: CampaignId,
    delivery: campaigns.ScheduleInput.shape.delivery.describe(
      '"instant" to send now, "scheduled" to send at scheduled_at.',
    ),
    scheduled_at: campaigns.ScheduleInput.shape.scheduled_at.describe(
      'Required for "scheduled": a future ISO 8601 date-time with offset.',
    ),
    local_time: campaigns.ScheduleInput.shape.local_time.describe(
      'For "local_time": the hour HH:MM at which each subscriber gets it in their time zone (else the account\'s). ' +
        'Not available for a campaign with an A/B test.',
    ),
    date: campaigns.ScheduleInput.shape.date.describe('For "local_time": the date YYYY-MM-DD.'),
    local_time_passed: campaigns.ScheduleInput.shape.local_time_passed.describe(
      'For "local_time": "send" (default) sends at once to whom that hour has passed, "skip" leaves them out.',
    ),
  }),
  async run(ctx, { campaign_id, ...s }) {
    return { data: await campaigns.schedule(ctx.db, ctx.config, ctx.key.accountId, campaign_id, s) };
  },
});

const cancelCampaign = defineTool({
  name: 'cancel_campaign',
  title: 'Cancel a campaign',
  scope: 'campaigns:write',
  description:
    'Cancel a scheduled campaign (it returns to draft and can be edited and scheduled again) or stop one that is sending (status ' +
    'cancelled; recipients not yet sent to never get it, the batch in flight completes). Other states fail with a tool error. ' +
    'action "pause" pauses a sending campaign instead (status paused; nothing new goes out), "resume" continues a paused one.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Campaign),
  input: z.object({
    campaign_id: CampaignId,
    action: z
      .enum(['cancel', 'pause', 'resume'], { error: 'action must be one of: cancel, pause, resume' })
      .optional()
      .describe('"cancel" (the default), "pause" or "resume".'),
  }),
  async run(ctx, a) {
    if (a.action === 'pause') return { data: await campaigns.pause(ctx.db, ctx.key.accountId, a.campaign_id) };
    if (a.action === 'resume') return { data: await campaigns.resume(ctx.db, ctx.key.accountId, a.campaign_id) };
    return { data: await campaigns.cancel(ctx.db, ctx.key.accountId, a.campaign_id) };
  },
});

export const campaignTools: Tool[] = [
  getCampaign,
  listCampaigns,
  getCampaignSubscribers,
  createCampaign,
  updateCampaign,
  deleteCampaign,
  scheduleCampaign,
  cancelCampaign,
];
