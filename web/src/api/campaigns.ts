// Campaigns (/app/api/campaigns, /campaign-templates): the list, one campaign, create and edit a draft,
// duplicate, delete, render unsaved content, preview a saved one, test sends, the audience count, schedule
// and cancel, pause and resume, A/B winners, resends to non-openers, the checks before a send, progress, report,
// recipients, providers, who clicked a link, and retrying what failed.
import { api, qs, urlOf, type ListOf, type ListQuery } from './client.ts';

/** How people responded to sent email, as campaign and automation stats both count it. */
export interface Engagement {
  opens: number;
  unique_opens: number;
  clicks: number;
  unique_clicks: number;
  unsubscribes: number;
  bounces: number;
  complaints: number;
  soft_bounces: number;
}
export type CampaignStatus = 'draft' | 'scheduled' | 'sending' | 'paused' | 'sent' | 'cancelled';
export type WinnerBy = 'opens' | 'clicks' | 'manual';
/** One variant of an A/B test: what it changes (left out: the campaign's own). */
export interface VariantInput {
  subject?: string | null;
  preview_text?: string | null;
  from_name?: string | null;
}
export interface AbTestInput {
  variants: VariantInput[];
  test_percent: number;
  winner_by: WinnerBy;
  wait_hours: number;
}
export interface VariantStats {
  sent: number;
  human_opens: number;
  clicks: number;
  unsubscribes: number;
  bounces: number;
}
export interface AbTest extends AbTestInput {
  variants: (VariantInput & { stats: VariantStats })[];
  winner: number | null;
  decides_at: string | null;
  confidence: { leader: number; runner_up: number; z: number; confidence: number } | null;
}
/** `blocks`: content_source is the visual editor's document (JSON), which the server renders. */
export type ContentFormat = 'html' | 'mjml' | 'blocks';

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
  /** when the draft was last saved: autosave sends it back, so a save from another tab is not overwritten */
  updated_at?: string;
  ab_test: AbTest | null;
  paused_at: string | null;
  resend_of: string | null;
  track_opens: boolean;
  track_clicks: boolean;
}
/** One check before a send: a failed "block" check refuses the send, a failed "warn" one only says so. */
export interface SendCheck {
  id: string;
  level: 'block' | 'warn';
  ok: boolean;
  message: string;
}
/** `ok`: no blocking check failed. */
export interface SendChecks {
  ok: boolean;
  checks: SendCheck[];
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
  /** people who opened or clicked, by the email client and device of their first open or click */
  clients: { name: string; opens: number; clicks: number }[];
  devices: { type: 'desktop' | 'mobile' | 'tablet' | 'unknown'; opens: number; clicks: number }[];
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
export interface ProviderCounts {
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
export interface Retryable {
  failed: number;
  interrupted: number;
}
/** A draft's fields as the editor saves them. */
export type DraftInput = Partial<
  Pick<
    Campaign,
    | 'name'
    | 'subject'
    | 'content_format'
    | 'content_source'
    | 'group_ids'
    | 'segment_ids'
    | 'plain_text'
    | 'track_opens'
    | 'track_clicks'
  >
> & {
  preview_text?: string;
  from_name?: string;
  from_email?: string;
  reply_to?: string;
  ab_test?: AbTestInput | null;
  /** the updated_at the editor loaded: the server answers 409 when the draft was saved since */
  expected_updated_at?: string;
};
/** Content not saved yet, to render. */
export interface RenderInput {
  subject: string;
  content_format: ContentFormat;
  content_source: string;
  subscriber_id?: string;
}

export const campaignKeys = {
  all: ['campaigns'] as const,
  lists: ['campaigns', 'list'] as const,
  list: (status: string, page: number) => ['campaigns', 'list', status, page] as const,
  one: (id: string) => ['campaigns', 'one', id] as const,
  /** every campaign, for pickers */
  every: ['campaigns', 'pick'] as const,
  templates: ['campaign-templates'] as const,
  render: (source: unknown, subscriberId: string) => ['campaigns', 'render', source, subscriberId] as const,
  audienceCount: (groupIds: string[], segmentIds: string[]) =>
    ['campaigns', 'audience-count', [...groupIds].sort(), [...segmentIds].sort()] as const,
  progress: (id: string) => ['campaigns', 'progress', id] as const,
  report: (id: string) => ['campaigns', 'report', id] as const,
  recipientsOf: (id: string) => ['campaigns', 'recipients', id] as const,
  recipients: (id: string, state: string, page: number) => ['campaigns', 'recipients', id, state, page] as const,
  providers: (id: string) => ['campaigns', 'providers', id] as const,
  linkRecipients: (id: string, linkId: string, page: number) =>
    ['campaigns', 'link-recipients', id, linkId, page] as const,
  retry: (id: string) => ['campaigns', 'retry', id] as const,
  checks: (id: string) => ['campaigns', 'checks', id] as const,
};

const one = (id: string) => `/campaigns/${encodeURIComponent(id)}`;
export const listCampaigns = (query: ListQuery) => api.get<ListOf<'campaigns', CampaignRow>>(`/campaigns${qs(query)}`);
export const everyCampaign = () => listCampaigns({ per_page: 100 });
export const getCampaign = (id: string) => api.get<Campaign>(one(id));
export const createCampaign = (body: DraftInput) => api.post<Campaign>('/campaigns', body);
export const updateCampaign = (id: string, body: DraftInput) => api.put<Campaign>(one(id), body);
export const duplicateCampaign = (id: string) => api.post<Campaign>(`${one(id)}/duplicate`);
export const cancelCampaign = (id: string) => api.post<Campaign>(`${one(id)}/cancel`);
export const pauseCampaign = (id: string) => api.post<Campaign>(`${one(id)}/pause`);
export const resumeCampaign = (id: string) => api.post<Campaign>(`${one(id)}/resume`);
export const pickAbWinner = (id: string, variant: number) => api.post<Campaign>(`${one(id)}/ab-winner`, { variant });
export const resendCampaign = (id: string, body: { subject?: string; name?: string }) =>
  api.post<Campaign>(`${one(id)}/resend`, body);
export const deleteCampaign = (id: string) => api.del(one(id));
export const starterTemplates = () =>
  api.get<ListOf<'templates', StarterTemplate>>('/campaign-templates').then((r) => r.templates);
export const renderDraft = (body: RenderInput) => api.post<Rendered>('/campaigns/render', body);
export const previewCampaign = (id: string, subscriberId?: string) =>
  api.post<Rendered>(`${one(id)}/preview`, { subscriber_id: subscriberId });
export const sendTest = (id: string, emails: string[]) => api.post<{ sent: number }>(`${one(id)}/test`, { emails });
export const audienceCount = (groupIds: string[], segmentIds: string[]) =>
  api.post<{ count: number }>('/campaigns/audience-count', { group_ids: groupIds, segment_ids: segmentIds });
export const scheduleCampaign = (id: string, body: { delivery: 'instant' | 'scheduled'; scheduled_at?: string }) =>
  api.post<Campaign>(`${one(id)}/schedule`, body);
export const getChecks = (id: string) => api.get<SendChecks>(`${one(id)}/checks`);
export const getProgress = (id: string) => api.get<Progress>(`${one(id)}/progress`);
export const getReport = (id: string) => api.get<Report>(`${one(id)}/report`);
export const listRecipients = (id: string, query: ListQuery) =>
  api.get<ListOf<'recipients', Recipient>>(`${one(id)}/recipients${qs(query)}`);
export const recipientsCsvUrl = (id: string, state: string) => urlOf(`${one(id)}/recipients.csv${qs({ state })}`);
export const listProviders = (id: string) => api.get<ListOf<'providers', ProviderRow>>(`${one(id)}/providers`);
export const listLinkRecipients = (id: string, linkId: string, query: ListQuery) =>
  api.get<ListOf<'recipients', LinkClicker>>(`${one(id)}/links/${linkId}/recipients${qs(query)}`);
export const getRetryable = (id: string) => api.get<Retryable>(`${one(id)}/retry`);
export const retryFailed = (id: string, states: string[]) =>
  api.post<{ requeued: number }>(`${one(id)}/retry`, { states });
