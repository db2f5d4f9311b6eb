// Campaign wire shapes of /app/api/campaigns… (docs/dashboard-api.md) and the queries the pages share.
import { useQuery } from '@tanstack/react-query';
import { api, type Engagement } from '../../api.ts';

export type CampaignStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'cancelled';
export type ContentFormat = 'html' | 'mjml';

export interface CampaignRow {
  id: string;
  name: string;
  subject: string;
  status: CampaignStatus;
  content_format: ContentFormat;
  group_ids: string[];
  segment_ids: string[];
  audience: string[];
  recipients: number | null;
  sent: number;
  unique_opens: number;
  unique_clicks: number;
  open_rate: number | null;
  click_rate: number | null;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
}
export interface Campaign extends CampaignRow {
  from_name: string | null;
  from_email: string | null;
  reply_to: string | null;
  preview_text: string | null;
  content_html: string | null;
  content_source: string | null;
  plain_text: string | null;
}
export interface Rendered {
  subject: string;
  html: string;
  text: string;
}
export interface Progress {
  status: CampaignStatus;
  total: number;
  queued: number;
  sending: number;
  sent: number;
  failed: number;
  interrupted: number;
  per_minute: number;
  /** set while a sending domain's warm-up holds recipients back until its next day */
  warmup?: { domain: string; waiting: number; resumes_at: string } | null;
  /** providers that asked to slow down: their recipients wait in the queue until then */
  deferred_by?: { provider: string; until: string; recipients: number }[];
}
export interface Report {
  stats: Omit<Engagement, 'soft_bounces'> & { sent: number; machine_opens: number; unique_human_opens: number };
  timeline: { at: string; opens: number; clicks: number }[];
  /** of the audience, left out at the freeze for an address on the suppression list */
  suppressed_count: number;
  links: { link_id: string; url: string; clicks: number; unique_clicks: number }[];
}
export interface Recipient {
  subscriber_id: string;
  email: string;
  state: string;
  smtp_reply: string | null;
  smtp_code: number | null;
  smtp_status: string | null;
  /** why a failed row failed: bounced, blocked, rejected, expired, error */
  failure: string | null;
  updated_at: string;
}
export interface LinkClicker {
  subscriber_id: string;
  email: string;
  first_clicked_at: string;
  last_clicked_at: string;
  clicks: number;
}
interface ProviderCounts {
  recipients: number;
  sent: number;
  deferred: number;
  failed: number;
  bounced: number;
  opened: number;
  human_opened: number;
  clicked: number;
}
export interface ProviderRow extends ProviderCounts {
  provider: string;
  domains: (ProviderCounts & { domain: string })[];
}
export interface StarterTemplate {
  id: string;
  name: string;
  description: string;
  content_format: 'mjml';
  content_source: string;
}
export interface AccountSettings {
  default_from_name: string | null;
  default_from_email: string | null;
  default_reply_to: string | null;
  timezone: string;
}

export const STATUS_TONE: Record<CampaignStatus, 'neutral' | 'good' | 'bad' | 'warn'> = {
  draft: 'neutral',
  scheduled: 'warn',
  sending: 'warn',
  sent: 'good',
  cancelled: 'bad',
};

export const campaignKey = (id: string) => ['campaigns', 'one', id];

export function useCampaign(id: string | undefined) {
  return useQuery({
    queryKey: campaignKey(id ?? ''),
    queryFn: () => api.get<Campaign>(`/campaigns/${encodeURIComponent(id!)}`),
    enabled: !!id,
  });
}

export function useSettings() {
  return useQuery({ queryKey: ['settings'], queryFn: () => api.get<AccountSettings>('/settings') });
}
