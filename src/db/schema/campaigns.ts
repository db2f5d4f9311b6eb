// Kysely types of the campaigns tables (migration 20261121_0930_campaigns.sql).
import type { Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.ts';

export type CampaignStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'cancelled';
export type RecipientState = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped' | 'interrupted';

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
  group_ids: Generated<string[]>;
  segment_ids: Generated<string[]>;
  status: Generated<CampaignStatus>;
  delivery: 'instant' | 'scheduled' | null;
  scheduled_at: NullableTimestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
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
  worker_id: string | null;
  message_id: string | null;
  last_error: string | null;
  sent_at: NullableTimestamp;
  opens: Generated<number>;
  clicks: Generated<number>;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  unsubscribed_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  soft_bounces: Generated<number>;
  complained_at: NullableTimestamp;
}

export interface CampaignLinksTable {
  campaign_id: string;
  idx: number;
  url: string;
}

export interface SendWorkersTable {
  id: string;
  heartbeat_at: Timestamp;
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

export interface CampaignsTables {
  campaigns: CampaignsTable;
  campaign_recipients: CampaignRecipientsTable;
  campaign_links: CampaignLinksTable;
  send_workers: SendWorkersTable;
  send_rate: SendRateTable;
  bounce_hook_confirmations: BounceHookConfirmationsTable;
}

export type CampaignRow = Selectable<CampaignsTable>;
export type RecipientRow = Selectable<CampaignRecipientsTable>;
