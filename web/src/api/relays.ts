// The account's SMTP relays (/app/api/relays): list, add one for some From domains, send a test through
// one, remove one. What Settings → Relays shows and changes. The URL is sent once and never comes back.
import { api, type Pagination } from './client.ts';

export interface Relay {
  id: string;
  name: string;
  host: string;
  port: number;
  secure: boolean;
  has_credentials: boolean;
  from_domains: string[];
  created_at: string;
}
export interface NewRelay {
  name: string;
  url: string;
  from_domains: string[];
}
export interface RelayTest {
  ok: boolean;
  message: string;
}

export const relayKeys = { all: ['relays'] as const };

export const listRelays = () => api.get<{ relays: Relay[]; pagination: Pagination }>('/relays');
export const addRelay = (relay: NewRelay) => api.post<Relay>('/relays', relay);
export const testRelay = (id: string, to: string) => api.post<RelayTest>(`/relays/${id}/test`, { to });
export const deleteRelay = (id: string) => api.del(`/relays/${id}`);
