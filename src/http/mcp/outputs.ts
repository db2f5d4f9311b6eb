// The shapes of what MCP tools answer: each tool's outputSchema (tools/list) is its `output` here, the JSON object
// {success: true, data, meta?} that its text and its structuredContent carry. They follow the domain views the tools
// return (subscribers.getFull, groups.view, campaigns.present, …); a field a view may leave out is optional, a column
// that may be empty is nullable. Objects stay open (no additionalProperties: false): views gain fields over time, and a
// client validating an older schema must not reject an answer for a field it does not know.
import { z } from 'zod';
import { SEND_CHECK_IDS } from '../../domain/accounts/profile.ts';
import { STATUSES as CAMPAIGN_STATUSES } from '../../domain/campaigns/campaigns.ts';
import { STATUSES as SUBSCRIBER_STATUSES } from '../../domain/subscribers/subscribers.ts';
import { FORM_TYPES } from '../../domain/forms/forms.ts';
import { POPUP_STYLES, POPUP_TRIGGERS } from '../../domain/forms/design.ts';
import { DELIVERY_STATUSES } from '../../domain/webhooks/webhooks.ts';
import { RUN_STATUSES } from '../../domain/automations/automations.ts';

// formats instead of zod's own uuid/datetime checks: those add long regular expressions to every field of tools/list
const Id = z.string().meta({ format: 'uuid' });
const Timestamp = z.string().meta({ format: 'date-time' }); // ISO 8601 in UTC, as JSON writes a Date
const Count = z.number().int().min(0);
const SubscriberStatus = z.enum(SUBSCRIBER_STATUSES);
const CustomFields = z.record(z.string(), z.unknown()).describe('Custom field values by field key.');
const JsonObject = z.record(z.string(), z.unknown());

/** list tools: where the page is (pagination.ts metaOf). */
export const PageMeta = z.object({
  current_page: z.number().int().min(1),
  last_page: z.number().int().min(1),
  per_page: z.number().int().min(1).max(100),
  total: Count,
});

/** A non-list tool's answer. */
export function single<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** A list tool's answer: the page's items and meta. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), data: z.array(item), meta: PageMeta });
}

/** What delete_* tools answer. */
export const Deleted = z.object({ id: Id, deleted: z.literal(true) });

// --- subscribers (domain/subscribers/subscribers.ts, http/subscriberViews.ts)

// the fields every subscriber view starts with; each view adds its own, in the order the view writes them
const subscriberNames = {
  id: Id,
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
};

/** A row of list_subscribers, get_group_subscribers and get_subscribers_in_segment (subscribers.ListItem). */
export const SubscriberListItem = z.object({ ...subscriberNames, status: SubscriberStatus, created_at: Timestamp });

/** get_subscriber: SUBSCRIBER_VIEW.get of subscribers.getFull. */
export const SubscriberFull = z.object({
  ...subscriberNames,
  phone: z.string().nullable(),
  status: SubscriberStatus,
  groups: z.array(z.object({ id: Id, name: z.string() })),
  custom_fields: CustomFields,
  notes: z.array(z.object({ id: Id, content: z.string(), created_at: Timestamp })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** update_subscriber (and add_subscriber, with created): SUBSCRIBER_VIEW.upsert. */
export const SubscriberWritten = z.object({
  ...subscriberNames,
  phone: z.string().nullable(),
  status: SubscriberStatus,
  custom_fields: CustomFields,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SubscriberCounts = z.union([
  z.object({ total: Count, active: Count, unsubscribed: Count, bounced: Count, complained: Count }),
  z.object({ status: SubscriberStatus, count: Count }),
]);

export const ActivityItem = z.object({
  id: Id,
  type: z.string().describe('Event type, e.g. subscriber.updated or email.opened.'),
  data: JsonObject,
  created_at: Timestamp,
});

export const Forgotten = z.object({ id: Id, forgotten: z.literal(true) });

const MembershipChange = {
  subscriber: z.object({ id: Id, email: z.string() }),
  group: z.object({ id: Id, name: z.string() }),
};
export const Assigned = z.object({ ...MembershipChange, added: z.boolean() });
export const Unassigned = z.object({ ...MembershipChange, removed: z.boolean() });

/** An import job (imports.toJob). */
export const ImportJob = z.object({
  job_id: Id,
  status: z.enum(['processing', 'completed', 'failed']),
  message: z.string(),
  file_name: z.string().nullable(),
  total_rows: Count,
  processed_rows: Count,
  created_count: Count,
  updated_count: Count,
  failed_count: Count,
  skipped_count: Count.describe('rows of subscribers who existed already, left alone (existing: skip)'),
  errors: z.array(z.object({ row: z.number().int(), email: z.string().nullable(), reason: z.string() })),
  warnings: z
    .array(z.object({ row: z.number().int(), email: z.string().nullable(), reason: z.string() }))
    .describe('rows imported with a value left out, and why (the first 100)'),
  warning_count: Count,
  options: z
    .object({
      existing: z.enum(['update', 'skip']).optional(),
      consent_note: z.string().optional(),
      on_bad_value: z.enum(['refuse_row', 'drop_value']).optional(),
      mapping: z.record(z.string(), z.string()).optional(),
    })
    .describe('the choices the import was started with (defaults left out)'),
  group_ids: z.array(Id),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
});

// --- groups and segments

export const Group = z.object({
  id: Id,
  name: z.string(),
  subscriber_count: Count,
  active_count: Count,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** A saved filter as it was stored: {match, rules}, each rule {field, operator, value?} or a nested {match, rules}. */
const Filter = z.object({
  match: z.enum(['all', 'any']),
  rules: z.array(JsonObject),
});

export const Segment = z.object({
  id: Id,
  name: z.string(),
  filter: Filter,
  subscriber_count: Count,
  created_at: Timestamp,
  updated_at: Timestamp,
});

// --- campaigns (campaigns.present, stats.ts)

const CampaignStats = z.object({
  recipients: Count,
  sent: Count,
  failed: Count,
  opens: Count,
  unique_opens: Count,
  clicks: Count,
  unique_clicks: Count,
  unsubscribes: Count,
  bounces: Count,
  complaints: Count,
  skipped: Count,
  interrupted: Count,
  pending: Count,
  soft_bounces: Count,
  machine_opens: Count.optional(),
  unique_human_opens: Count.optional(),
});

const VariantStats = z.object({
  sent: Count,
  human_opens: Count,
  clicks: Count,
  unsubscribes: Count,
  bounces: Count,
});

const AbTest = z
  .object({
    variants: z.array(
      z.object({
        subject: z.string().nullable().optional(),
        preview_text: z.string().nullable().optional(),
        from_name: z.string().nullable().optional(),
        content_format: z.string().optional(),
        content_source: z.string().nullable().optional(),
        stats: VariantStats,
      }),
    ),
    test_percent: z.number(),
    winner_by: z.enum(['opens', 'clicks', 'manual']),
    wait_hours: z.number(),
    winner: z.number().int().nullable(),
    decides_at: Timestamp.nullable(),
    confidence: z
      .object({ leader: z.number().int(), runner_up: z.number().int(), z: z.number(), confidence: z.number() })
      .nullable(),
  })
  .describe('The A/B test: variants with their test-share stats (human opens only), the winner (index) or null');

export const Campaign = z.object({
  id: Id,
  name: z.string(),
  subject: z.string().nullable(),
  preview_text: z.string().nullable(),
  from_name: z.string().nullable(),
  from_email: z.string().nullable(),
  reply_to: z.string().nullable(),
  content_html: z.string().nullable(),
  content_text: z.string().nullable(),
  content_format: z.enum(['html', 'mjml', 'blocks']),
  content_source: z.string().nullable(),
  group_ids: z.array(Id),
  segment_ids: z.array(Id),
  track_opens: z.boolean(),
  track_clicks: z.boolean(),
  status: z.enum(CAMPAIGN_STATUSES),
  delivery: z.enum(['instant', 'scheduled', 'local_time']).nullable(),
  scheduled_at: Timestamp.nullable(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  cancelled_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  stats: CampaignStats,
  paused_at: Timestamp.optional().describe('Present while paused'),
  resend_of: Id.optional().describe('The campaign this one resends to its non-openers'),
  ab_test: AbTest.optional(),
  local_time: z
    .object({ local_time: z.string(), date: z.string(), local_time_passed: z.enum(['send', 'skip']) })
    .optional()
    .describe('Local-time delivery: the hour and date in each subscriber’s zone'),
});

/** The checks before a send (campaigns/checks.ts): `ok` when no blocking check failed. */
export const SendChecks = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({
      id: z.enum(SEND_CHECK_IDS),
      level: z.enum(['block', 'warn']),
      ok: z.boolean(),
      message: z.string(),
    }),
  ),
});

/** get_campaign: the campaign and its checks before a send. */
export const CampaignWithChecks = Campaign.extend({ checks: SendChecks });

/** A send-ledger row of get_campaign_subscribers (stats.recipients). */
export const CampaignRecipient = z.object({
  subscriber: z.object({
    id: Id,
    email: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    status: SubscriberStatus,
  }),
  state: z.enum(['queued', 'sending', 'sent', 'failed', 'skipped', 'interrupted']),
  attempts: Count,
  message_id: z.string().nullable(),
  last_error: z.string().nullable(),
  sent_at: Timestamp.nullable(),
  opens: Count,
  clicks: Count,
  opened_at: Timestamp.nullable(),
  clicked_at: Timestamp.nullable(),
  unsubscribed_at: Timestamp.nullable(),
  bounced_at: Timestamp.nullable(),
  complained_at: Timestamp.nullable(),
  // the mail server's last reply and why a failed row failed, where the ledger records them
  smtp_code: z.number().int().nullable().optional(),
  smtp_status: z.string().nullable().optional(),
  smtp_reply: z.string().nullable().optional(),
  failure: z.string().nullable().optional(),
  variant: z.number().int().nullable().optional().describe('The A/B variant sent to this recipient'),
});

// --- webhooks (webhooks.view, deliveryView)

export const Webhook = z.object({
  id: Id,
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  last_delivery: z.object({ at: Timestamp, status_code: z.number().int().nullable() }).nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WebhookWithSecret = Webhook.extend({ secret: z.string().describe('Signing secret, whsec_…') });

const Delivery = z.object({
  id: Id,
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  is_test: z.boolean(),
  replay_of: Id.nullable(),
  attempt_count: Count,
  last_status_code: z.number().int().nullable(),
  next_attempt_at: Timestamp.nullable(),
  delivered_at: Timestamp.nullable(),
  created_at: Timestamp,
  payload: z.object({
    id: z.string(),
    event_type: z.string(),
    created_at: z.string(),
    account_id: z.string(),
    data: JsonObject,
  }),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      status_code: z.number().int().nullable(),
      duration_ms: z.number(),
      response: z.string().nullable(),
      error: z.string().nullable(),
      created_at: Timestamp,
    }),
  ),
});

export const WebhookDetail = WebhookWithSecret.extend({ recent_deliveries: z.array(Delivery) });

// --- automations (automations.view, runView)

export const Automation = z.object({
  id: Id,
  name: z.string(),
  enabled: z.boolean(),
  trigger: z.looseObject({ type: z.string() }),
  steps: z.array(z.looseObject({ type: z.string() })),
  stats: z.object({
    started: Count,
    active: Count,
    completed: Count,
    canceled: Count,
    failed: Count,
    emails_sent: Count,
    opens: Count,
    unique_opens: Count,
    clicks: Count,
    unique_clicks: Count,
    unsubscribes: Count,
    bounces: Count,
    complaints: Count,
    soft_bounces: Count,
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AutomationRun = z.object({
  id: Id,
  subscriber: z.object({ id: Id, email: z.string() }),
  status: z.enum(RUN_STATUSES),
  current_step: z.object({ path: z.string(), type: z.string().nullable() }).nullable(),
  next_run_at: Timestamp.nullable(),
  emails_sent: Count,
  trigger_event_id: z.string(),
  history: z.array(
    z.looseObject({ at: z.string(), type: z.string(), result: z.string(), step: z.string().optional() }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Timestamp.nullable(),
});

// --- forms (forms.present, getWithEmbed, signups)

/** The form's design as answered: the fields of FormDesign (domain/forms/design.ts), open like every other view. */
const FormDesignView = z
  .object({
    heading: z.string(),
    description: z.string(),
    button_text: z.string(),
    colors: z.object({ accent: z.string(), background: z.string(), text: z.string() }).partial(),
    consent: z.object({ text: z.string(), required: z.boolean() }).nullable(),
    check_inbox_message: z.string(),
    confirmed_message: z.string(),
    popup: z.object({
      style: z.enum(POPUP_STYLES),
      trigger: z.enum(POPUP_TRIGGERS),
      delay_seconds: Count,
      scroll_percent: Count,
    }),
  })
  .partial();

export const Form = z.object({
  id: Id,
  name: z.string(),
  type: z.enum(FORM_TYPES),
  group_ids: z.array(Id),
  double_opt_in: z.boolean(),
  fields: z.array(z.object({ key: z.string(), label: z.string(), required: z.boolean() })),
  success_message: z.string(),
  redirect_url: z.string().nullable(),
  active: z.boolean(),
  stats: z.object({ views: Count, submissions: Count, confirmations: Count }),
  created_at: Timestamp,
  updated_at: Timestamp,
  confirmation_subject: z.string().nullable(),
  content_format: z.enum(['html', 'blocks']),
  content_source: z.string().nullable(),
  slug: z.string().nullable().describe('The readable public address /f/<slug>; the id address works too.'),
  design: FormDesignView.describe(
    'Heading, description, button, colours, consent, messages and pop-up of the public form.',
  ),
});

export const FormWithEmbed = Form.extend({
  url: z.string().describe('The hosted signup page.'),
  embed: z.string().describe('HTML markup to paste into a website.'),
  embed_script: z.string().describe('A script tag that opens the form as a pop-up or slide-in.'),
});

export const FormSignup = SubscriberListItem.extend({ signed_up_at: Timestamp });
