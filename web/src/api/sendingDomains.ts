// The account's sending domains (/app/api/sending-domains): add one, the DNS records to publish, verify
// them now, remove one. What Settings → Sending domains shows and changes.
import { api, type Pagination } from './client.ts';

export type DomainStatus = 'pending' | 'verified' | 'failed';
export type DnsPurpose = 'dkim' | 'spf' | 'dmarc' | 'return_path';
export interface DnsRecord {
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
  purpose: DnsPurpose;
}
export interface DomainCheck {
  purpose: DnsPurpose;
  ok: boolean;
  found: string | null;
  message?: string;
}
export interface SendingDomain {
  id: string;
  domain: string;
  status: DomainStatus;
  selector: string;
  dns_records: DnsRecord[];
  checks: DomainCheck[];
  checked_at: string | null;
  verified_at: string | null;
  created_at: string;
}
export interface Verification {
  id: string;
  domain: string;
  status: DomainStatus;
  checks: DomainCheck[];
}

export const sendingDomainKeys = { all: ['sending-domains'] as const };

export const listSendingDomains = () =>
  api.get<{ sending_domains: SendingDomain[]; pagination: Pagination }>('/sending-domains');
export const addSendingDomain = (domain: string) => api.post<SendingDomain>('/sending-domains', { domain });
export const verifySendingDomain = (id: string) => api.post<Verification>(`/sending-domains/${id}/verify`, {});
export const deleteSendingDomain = (id: string) => api.del(`/sending-domains/${id}`);
