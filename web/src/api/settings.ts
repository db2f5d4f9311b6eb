// The account's settings, team, custom fields and warm-up plans (/app/api/settings, /members, /fields,
// /warmup): what the Settings page shows and changes.
import { api, type Pagination } from './client.ts';
import type { Role } from './session.ts';

export interface AccountSettings {
  id: string;
  name: string;
  subscriber_limit: number;
  default_from_name: string | null;
  default_from_email: string | null;
  default_reply_to: string | null;
  tracking_enabled: boolean;
  verify_emails: boolean;
  timezone: string;
  /** shown in every email's footer; lines separated by \n */
  postal_address: string | null;
  /** checks before a send that refuse it for this account beyond the instance's */
  blocking_checks: string[];
  /** the checks this instance refuses a send on whatever the account says (SEND_CHECKS); read only */
  instance_blocking_checks: string[];
}
export interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}
export type FieldType = 'text' | 'number' | 'date' | 'boolean';
export interface CustomField {
  id: string;
  key: string;
  name: string;
  type: FieldType;
  created_at: string;
}
export interface WarmupPlan {
  id: string;
  domain: string;
  start_date: string;
  first_day_cap: number;
  growth: number;
  days: number;
  created_at: string;
  today: { day: number; cap: number | null; used: number; resets_at: string };
}

export const settingsKeys = {
  settings: ['settings'] as const,
  members: ['members'] as const,
  fields: ['fields'] as const,
  warmup: ['warmup'] as const,
};

export const getSettings = () => api.get<AccountSettings>('/settings');
export const saveSettings = (
  body: Partial<Omit<AccountSettings, 'id' | 'subscriber_limit' | 'instance_blocking_checks'>>,
) => api.patch<AccountSettings>('/settings', body);

export const listMembers = () => api.get<{ members: Member[]; pagination: Pagination }>('/members');
export const addMember = (body: Record<string, unknown>) => api.post<Member>('/members', body);
export const changeRole = (id: string, role: Role) => api.put<Member>(`/members/${id}`, { role });
export const removeMember = (id: string) => api.del(`/members/${id}`);

export const listFields = () => api.get<{ fields: CustomField[]; pagination: Pagination }>('/fields');
export const createField = (body: { key: unknown; name: unknown; type: unknown }) =>
  api.post<CustomField>('/fields', body);
export const renameField = (id: string, name: string) => api.put<CustomField>(`/fields/${id}`, { name });
export const deleteField = (id: string) => api.del(`/fields/${id}`);

export const listWarmupPlans = () => api.get<{ plans: WarmupPlan[]; pagination: Pagination }>('/warmup');
export const createWarmupPlan = (body: Record<string, unknown>) => api.post<WarmupPlan>('/warmup', body);
export const deleteWarmupPlan = (id: string) => api.del(`/warmup/${id}`);
