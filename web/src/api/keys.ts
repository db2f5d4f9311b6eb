// API keys of the account (/app/api/keys): list with the scopes a key may get, create (the raw key is in
// that answer only), revoke.
import { api, type Pagination } from './client.ts';

export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  hint: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}
export interface NewApiKey {
  name: unknown;
  scopes: string[];
  expires_at?: string;
}

export const keyKeys = { all: ['keys'] as const };

export const listKeys = () => api.get<{ keys: ApiKey[]; pagination: Pagination; scopes: string[] }>('/keys');
export const createKey = (body: NewApiKey) => api.post<ApiKey & { key: string }>('/keys', body);
export const revokeKey = (id: string) => api.del(`/keys/${id}`);
