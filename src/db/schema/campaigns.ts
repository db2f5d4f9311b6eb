// Kysely types of the campaigns tables (migration 20261121_0930_campaigns.sql).
import type { Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.ts';

export type CampaignStatus = 'draft' | 'scheduled' | 'sending' | 'paused' | 'sent' | 'cancelled';
export type RecipientState = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped' | 'interrupted';
/** why a 'failed' row failed (migration 20261126_0900) */
export type RecipientFailure = 'bounced' | 'blocked' | 'rejected' | 'expired' | 'error';

export interface CampaignsTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  subject: string | null;
  preview_text: string | null;
  from_name: string | null;
  from_email: string | null;
  reply_to: string | null;
  content_html: string | null;
  content_text: string | null;
  content_format: Generated<'html' | 'mjml' | 'blocks'>;
  content_source: string | null;
  group_ids: Generated<string[]>;
  segment_ids: Generated<string[]>;
  status: Generated<CampaignStatus>;
  delivery: 'instant' | 'scheduled' | 'local_time' | null;
  scheduled_at: NullableTimestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** how many of the audience the freeze left out for a suppressed address (migration 20261126_0930) */
  suppressed_count: Generated<number>;
  /** open pixel and tracked links of this campaign (migration 20261206_1400) */
  track_opens: Generated<boolean>;
  track_clicks: Generated<boolean>;
  /** pause, A/B test, resend and local-time delivery (migration 20261206_1200) */
  paused_at: NullableTimestamp;
  ab_test: AbTestColumn | null;
  ab_winner: number | null;
  ab_decide_at: NullableTimestamp;
  resend_of: string | null;
  local_time: string | null;
  local_date: string | null;
  local_time_past: 'send' | 'skip' | null;
}

/** A campaign's A/B test as stored (campaigns/abTests.ts); content_html is each variant's compiled content. */
export interface AbTestColumn {
  variants: {
    subject?: string | null;
    preview_text?: string | null;
    from_name?: string | null;
    content_format?: string;
    content_source?: string | null;
    content_html?: string | null;
  }[];
  test_percent: number;
  winner_by: 'opens' | 'clicks' | 'manual';
  wait_hours: number;
  seed: number;
}

export interface CampaignRecipientsTable {
  id: Generated<number>;
  campaign_id: string;
  account_id: string;
  subscriber_id: string;
  email: string;
  state: Generated<RecipientState>;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  /** the worker that marked the row 'sending' (a claim is a row of send_claims) */
  worker_id: string | null;
  message_id: string | null;
  last_error: string | null;
  sent_at: NullableTimestamp;
  opens: Generated<number>;
  /** of opens, those a privacy proxy fetched (migration 20261126_0920) */
  machine_opens: Generated<number>;
  clicks: Generated<number>;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  unsubscribed_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  soft_bounces: Generated<number>;
  complained_at: NullableTimestamp;
  /** the provider whose backoff put the row back in the queue (migration 20261126_0910) */
  deferred_by: string | null;
  /** the mail server's last reply for the row, and why a failed row failed (migration 20261126_0900) */
  smtp_code: number | null;
  smtp_status: string | null;
  smtp_reply: string | null;
  failure: RecipientFailure | null;
  /** earlier rounds a retry put back in the queue, oldest first (migration 20261126_0930) */
  previous_errors: Generated<PreviousError[]>;
  /** the A/B variant this recipient is sent (migration 20261206_1200) */
  variant: number | null;
  /** not in the A/B test share: held until the winner is known */
  ab_rest: boolean | null;
  /** what a report that arrived later by mail said about this email (migration 20261206_1100) */
  feedback: LateFeedback | null;
  feedback_status: string | null;
  feedback_detail: string | null;
  feedback_at: NullableTimestamp;
  /** the email client and device of the first human open or click (migration 20261207_0400) */
  client: string | null;
  device: string | null;
}

export type LateFeedback = 'bounced' | 'soft_bounced' | 'blocked' | 'delayed' | 'complained';

export interface PreviousError {
  state: 'failed' | 'interrupted';
  failure: string | null;
  error: string | null;
  attempts: number;
  at: string;
}

export interface CampaignLinksTable {
  campaign_id: string;
  idx: number;
  url: string;
}

/** Who clicked which link of a campaign, and how often (migration 20261126_0920). */
export interface CampaignLinkClicksTable {
  campaign_id: string;
  link_idx: number;
  subscriber_id: string;
  account_id: string;
  clicks: Generated<number>;
  first_clicked_at: Timestamp;
  last_clicked_at: Timestamp;
}

export interface SendWorkersTable {
  id: string;
  heartbeat_at: Timestamp;
}

/** A send lane's claim of a campaign's ledger rows with ids in [lo, hi] (migration 20261126_1100). */
export interface SendClaimsTable {
  id: Generated<number>;
  worker_id: string;
  campaign_id: string;
  lo: number;
  hi: number;
  created_at: Generated<Timestamp>;
}

/** A provider not sent to until `until` after answering 421 / 4.7.x (migration 20261126_0910). */
export interface ProviderBackoffTable {
  provider: string;
  level: Generated<number>;
  until: Timestamp;
  updated_at: Generated<Timestamp>;
}

export interface SendRateTable {
  id: number;
  tokens: number;
  updated_at: Timestamp;
}

export interface BounceHookConfirmationsTable {
  id: Generated<string>;
  account_id: string;
  provider: string;
  topic_arn: string | null;
  subscribe_url: string;
  created_at: Timestamp;
}

/** Subscribers whose address may be suppressed (migration 20261124_0900): null not checked yet, true suppressed. */
export interface SuppressionChecksTable {
  subscriber_id: string;
  account_id: string;
  suppressed: Generated<true | null>;
}

export interface CampaignsTables {
  campaigns: CampaignsTable;
  campaign_recipients: CampaignRecipientsTable;
  campaign_links: CampaignLinksTable;
  campaign_link_clicks: CampaignLinkClicksTable;
  send_workers: SendWorkersTable;
  send_claims: SendClaimsTable;
  send_rate: SendRateTable;
  provider_backoff: ProviderBackoffTable;
  bounce_hook_confirmations: BounceHookConfirmationsTable;
  suppression_checks: SuppressionChecksTable;
  soft_bounce_streaks: SoftBounceStreaksTable;
}

/** soft bounces in a row per subscriber (migration 20261126_0900) */
export interface SoftBounceStreaksTable {
  subscriber_id: string;
  account_id: string;
  count: number;
  last_at: Timestamp;
}

export type CampaignRow = Selectable<CampaignsTable>;
export type RecipientRow = Selectable<CampaignRecipientsTable>;
