// The Overview page's figures (/app/api/overview): subscriber counts against the plan limit, 30 days of
// growth, the latest campaigns and the 30-day bounce and complaint rates.
import type { CampaignRow } from './campaigns.ts';
import { api } from './client.ts';

export interface Stats {
  total: number;
  active: number;
  unsubscribed: number;
  bounced: number;
  limit: number;
  usage_percentage: number;
  /** double opt-in sign-ups waiting for their confirmation link */
  pending_signups?: number;
  growth?: { day: string; total: number; new: number }[];
  recent_campaigns?: CampaignRow[];
  rates?: { sent_30d: number; bounce_rate: number; complaint_rate: number };
}

export const overviewKeys = { all: ['overview'] as const };

export const getOverview = () => api.get<Stats>('/overview');
