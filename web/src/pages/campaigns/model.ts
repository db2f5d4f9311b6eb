// What the campaign pages share: the status badges' tones and the queries of one campaign and of the
// account's settings (sender defaults, time zone). The wire shapes are in api/campaigns.ts.
import { useQuery } from '@tanstack/react-query';
import { campaignKeys, getCampaign, type CampaignStatus } from '../../api/campaigns.ts';
import { getSettings, settingsKeys } from '../../api/settings.ts';

export type {
  AbTest,
  AbTestInput,
  Campaign,
  CampaignRow,
  CampaignStatus,
  ContentFormat,
  LinkClicker,
  Progress,
  ProviderRow,
  Recipient,
  Rendered,
  Report,
  StarterTemplate,
} from '../../api/campaigns.ts';
export type { AccountSettings } from '../../api/settings.ts';

export const STATUS_TONE: Record<CampaignStatus, 'neutral' | 'good' | 'bad' | 'warn'> = {
  draft: 'neutral',
  scheduled: 'warn',
  sending: 'warn',
  paused: 'warn',
  sent: 'good',
  cancelled: 'bad',
};

export const campaignKey = campaignKeys.one;

export function useCampaign(id: string | undefined) {
  return useQuery({
    queryKey: campaignKey(id ?? ''),
    queryFn: () => getCampaign(id!),
    enabled: !!id,
  });
}

export function useSettings() {
  return useQuery({ queryKey: settingsKeys.settings, queryFn: getSettings });
}
