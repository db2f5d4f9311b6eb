// Mail that came home later (/app/api/bounces, /app/api/campaigns/:id/late-feedback): the bounce setup
// that Settings shows (and the account's own bounce mailbox it sets), and a campaign's late bounces and
// complaints for its report.
import { api } from './client.ts';

export type LateFeedbackKind = 'bounced' | 'soft_bounced' | 'blocked' | 'delayed' | 'complained';

export interface LateFeedback {
  subscriber_id: string;
  email: string;
  feedback: LateFeedbackKind;
  feedback_status: string | null;
  feedback_detail: string | null;
  feedback_at: string;
}

export interface BounceSetup {
  return_path_domain: string | null;
  listener: {
    configured: boolean;
    listening: boolean;
    address: string | null;
    tls: boolean;
    error: string | null;
    last_received_at: string | null;
  };
  mailbox: {
    configured: boolean;
    mailbox: string | null;
    last_poll_at: string | null;
    last_error: string | null;
    last_received_at: string | null;
  };
  account_mailbox: AccountMailbox;
  /** every live worker instance's listener and mailbox, as of its last heartbeat */
  instances: {
    host: string;
    listener: {
      listening: boolean;
      address: string | null;
      tls: boolean;
      error: string | null;
      last_received_at: string | null;
    } | null;
    mailbox: { mailbox: string; last_poll_at: string | null; last_error: string | null } | null;
  }[];
  last_received_at: string | null;
  last_30_days: Record<string, number>;
  unmatched: number;
}

/** The account's own bounce mailbox: where it points and how its last poll went, never its URL. */
export interface AccountMailbox {
  configured: boolean;
  host: string | null;
  last_polled_at: string | null;
  last_error: string | null;
}

export const bounceKeys = {
  setup: ['bounces', 'setup'] as const,
  campaign: (id: string) => ['bounces', 'campaign', id] as const,
};

export const getBounceSetup = () => api.get<BounceSetup>('/bounces');
/** Sets (an imaps:// URL with user and password) or removes (null) the account's own bounce mailbox. */
export const setAccountMailbox = (bounce_imap_url: string | null) =>
  api.put<AccountMailbox>('/bounces/mailbox', { bounce_imap_url });
export const listLateFeedback = (campaignId: string) =>
  api.get<{ items: LateFeedback[] }>(`/campaigns/${campaignId}/late-feedback`);
