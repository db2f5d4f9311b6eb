// What each REST route answers on success, as zod schemas for the OpenAPI document. The objects the MCP
// tools answer too are imported from ../mcp/outputs.ts (the same domain views), the subscriber field sets
// are the spec's, picked by ../subscriberViews.ts; only the views no tool shows are written here.
import { z } from 'zod';
import { FIELD_TYPES } from '../../domain/subscribers/fields.ts';
import * as outputs from '../mcp/outputs.ts';
import { SUBSCRIBER_VIEW } from '../subscriberViews.ts';

const Id = z.string().meta({ format: 'uuid' });
const Timestamp = z.string().meta({ format: 'date-time' });
const Count = z.number().int().min(0);

const picked = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, true])) as { [P in K]: true };

// --- subscribers: the spec's field sets ("Which fields each response carries"), exactly

/** POST /subscribers: SUBSCRIBER_VIEW.create. */
export const SubscriberCreated = outputs.SubscriberFull.pick(picked(SUBSCRIBER_VIEW.create)).strict();
/** GET /subscribers/{id}: SUBSCRIBER_VIEW.get. */
export const SubscriberFull = outputs.SubscriberFull.pick(picked(SUBSCRIBER_VIEW.get)).strict();
/** PUT /subscribers/{id}: SUBSCRIBER_VIEW.update. */
export const SubscriberUpdated = outputs.SubscriberFull.pick(picked(SUBSCRIBER_VIEW.update)).strict();
/** A row of GET /subscribers and of a group's or segment's members. */
export const SubscriberListItem = outputs.SubscriberListItem.strict();

/** GET /subscribers/stats (spec "Subscriber statistics"). */
export const SubscriberStats = z.object({
  total: Count,
  active: Count,
  unsubscribed: Count,
  bounced: Count,
  limit: Count,
  usage_percentage: Count,
});

/** POST /subscribers/bulk: how many subscribers the action changed. */
export const BulkResult = z.object({ affected: Count });

// --- the account

export const Account = z.object({
  id: Id,
  name: z.string(),
  default_from_name: z.string().nullable(),
  default_from_email: z.string().nullable(),
  default_reply_to: z.string().nullable(),
  timezone: z.string().describe('IANA time zone name'),
  postal_address: z.string().nullable().describe('Lines separated by \\n; null until given'),
  tracking_enabled: z.boolean().describe('whether new campaigns track opens and clicks unless they say'),
  blocking_checks: z.array(z.string()).describe('checks before a send that refuse it for this account'),
  subscriber_limit: Count,
  created_at: Timestamp,
  updated_at: Timestamp,
  bounce_mailbox: z
    .object({
      configured: z.boolean(),
      host: z.string().nullable(),
      last_polled_at: Timestamp.nullable(),
      last_error: z.string().nullable(),
    })
    .describe('the account’s own bounce mailbox (bounce_imap_url): where it points, never its URL or password'),
});

// --- custom fields

export const Field = z.object({
  id: Id,
  key: z.string(),
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  created_at: Timestamp,
});

// --- imports

export const ImportJob = outputs.ImportJob;

// --- suppressions

export const Suppression = z.object({
  id: Id,
  email: z.string().nullable().describe('null for a forgotten address, kept only as a salted hash'),
  reason: z.string().describe('manual, forgotten, bounced, complained'),
  subscriber_id: Id.nullable(),
  created_at: Timestamp,
});
export const SuppressionCsvResult = z.object({
  added: Count,
  already_listed: Count,
  invalid_count: Count,
  invalid: z.array(z.unknown()).describe('The first refused lines.'),
});

// --- campaigns

export const Campaign = outputs.Campaign;
export const SendChecks = outputs.SendChecks;
const WarmupToday = z.object({
  day: z.number().int().describe('1 on the first day; 0 or less before the start date'),
  cap: Count.nullable().describe('null once the plan is over'),
  used: Count,
  resets_at: Timestamp,
});
export const WarmupPlan = z.object({
  id: Id,
  domain: z.string(),
  start_date: z.string().describe('YYYY-MM-DD'),
  first_day_cap: Count,
  growth: z.number(),
  days: Count,
  created_at: Timestamp,
  today: WarmupToday,
});
export const CampaignWithWarmup = outputs.Campaign.extend({
  warmup: z
    .object({ domain: z.string(), waiting: Count, resumes_at: Timestamp, today: WarmupToday })
    .optional()
    .describe("Present while a sending domain's warm-up holds recipients back."),
});
export const CampaignRecipient = outputs.CampaignRecipient;
export const CampaignLink = z.object({ link_id: z.string(), url: z.string(), clicks: Count, unique_clicks: Count });
/** GET /campaigns/{id}/clients: who opened and clicked, by email client and by device. */
export const CampaignClients = z.object({
  clients: z.array(z.object({ name: z.string(), opens: Count, clicks: Count })),
  devices: z.array(z.object({ type: z.enum(['desktop', 'mobile', 'tablet', 'unknown']), opens: Count, clicks: Count })),
});
export const LinkClicker = z.object({
  subscriber_id: Id,
  email: z.string(),
  first_clicked_at: Timestamp,
  last_clicked_at: Timestamp,
  clicks: Count,
});
const LedgerCounts = {
  recipients: Count,
  sent: Count,
  deferred: Count,
  failed: Count,
  bounced: Count,
  opened: Count,
  human_opened: Count,
  clicked: Count,
};
export const ProviderRow = z.object({
  provider: z.string(),
  ...LedgerCounts,
  domains: z.array(z.object({ domain: z.string(), ...LedgerCounts })),
});
export const RetryResult = z.object({ requeued: Count, status: z.string() });
export const Preview = z.looseObject({ subject: z.string(), html: z.string(), text: z.string() });
/** POST /campaigns/{id}/test: how many test messages went out. */
export const TestSent = z.object({ sent: Count });
export const OutboxSummary = z.object({
  id: Id,
  message_id: z.string().nullable(),
  from_addr: z.string(),
  to_addr: z.string(),
  subject: z.string().nullable(),
  created_at: Timestamp,
});
export const OutboxMessage = OutboxSummary.loose();

// --- webhooks

export const Webhook = outputs.Webhook;
export const WebhookWithSecret = outputs.WebhookWithSecret;
export const WebhookDetail = outputs.WebhookDetail;
export const Delivery = outputs.WebhookDetail.shape.recent_deliveries.element;
/** POST /webhooks/{id}/test: the one attempt, made now. */
export const WebhookTest = z.object({
  delivery_id: Id,
  event_id: z.string(),
  status: z.string(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number(),
  response: z.string().nullable(),
  error: z.string().nullable(),
});

// --- the rest, as the tools show them

export const Group = outputs.Group;
export const Assigned = outputs.Assigned;
export const Unassigned = outputs.Unassigned;
export const Segment = outputs.Segment;
export const Form = outputs.Form;
export const FormWithEmbed = outputs.FormWithEmbed;
export const FormSignup = outputs.FormSignup;
export const Automation = outputs.Automation;
export const AutomationRun = outputs.AutomationRun;

/** GET /test-auth (spec "Authentication-test result"). */
export const AuthTest = z.object({
  user_id: Id,
  idp_user_id: z.string().describe("The user's identifier at the identity provider."),
  api_key_name: z.string(),
  authenticated_at: Timestamp,
});

/** GET /api/health (spec "Health report"): healthy. */
export const Healthy = z.object({
  status: z.literal('ok'),
  message: z.string(),
  timestamp: Timestamp,
  version: z.string(),
});
/** GET /api/health: 503. */
export const Down = z.object({ status: z.literal('down'), message: z.string() });
/** GET /api/health/ready. */
export const Readiness = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.object({ database: z.string(), migrations: z.string(), queue: z.string() }),
});

/** A double opt-in sign-up (GET /signups and its actions). */
export const Signup = z.object({
  id: Id,
  form_id: Id.nullable().describe('null: a sign-up through POST /subscribers with double_opt_in and no form_id'),
  form_name: z.string().nullable(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  status: z.enum(['pending', 'confirmed', 'expired']),
  created_at: Timestamp,
  expires_at: Timestamp.describe('When the confirmation link stops working (SIGNUP_CONFIRM_DAYS after the last mail).'),
  last_sent_at: Timestamp.nullable(),
  confirmed_at: Timestamp.nullable(),
  subscriber_id: Id.nullable(),
  confirmed_by: z.string().nullable().describe('Confirmed by hand: the dashboard user or API key that did it.'),
  confirm_reason: z.string().nullable(),
});

// --- images and templates of the block editor

/** An uploaded image: its public URL under PUBLIC_URL and what was read from the file. */
export const Image = z.object({
  id: Id,
  url: z.string(),
  content_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  width: Count,
  height: Count,
  size: Count,
  filename: z.string().nullable(),
  created_at: Timestamp,
});

/** A starter or saved template: its block document (docs/campaigns.md). */
export const Template = z.object({
  id: Id,
  key: z.string().nullable(),
  name: z.string(),
  kind: z.enum(['starter', 'saved']),
  used_for: z.enum(['campaign', 'automation', 'confirmation']).nullable(),
  description: z.string().nullable(),
  document: z.record(z.string(), z.unknown()),
  thumbnail_html: z.string().optional(),
  created_at: Timestamp.nullable(),
});
