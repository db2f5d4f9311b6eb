// Subscribers (/app/api/subscribers): the list with its filters, one subscriber with its groups and notes,
// add, edit and delete, its activity, notes, bulk actions and the CSV export's address.
import { api, qs, urlOf, type ListOf, type ListQuery } from './client.ts';

export interface Subscriber {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  source: string;
  custom_fields: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
export interface FullSubscriber extends Subscriber {
  /** IANA zone for local-time delivery; null: the account's */
  time_zone: string | null;
  groups: { id: string; name: string }[];
  notes: { id: string; content: string; created_at: string }[];
}
export interface ActivityItem {
  id: string;
  type: string;
  data: Record<string, any>;
  created_at: string;
  /** the campaign's or automation's name, where the email came from one that still exists */
  source_name?: string;
}
/** The list's filters, as the list's query string and the export's. */
export type SubscriberFilter = Partial<Record<'search' | 'status' | 'group_id' | 'segment_id', string>>;
export interface SubscriberEdit {
  email?: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  time_zone?: string | null;
  status?: string;
  group_ids?: string[];
  custom_fields?: Record<string, unknown>;
}
export interface BulkAction {
  action: 'add_to_group' | 'remove_from_group' | 'unsubscribe' | 'delete';
  group_id?: string;
  ids?: string[];
  filter?: SubscriberFilter;
}

export const subscriberKeys = {
  all: ['subscribers'] as const,
  list: (filter: SubscriberFilter, page: number) => ['subscribers', filter, page] as const,
  one: (id: string) => ['subscribers', 'one', id] as const,
  activity: (id: string, page: number) => ['subscribers', 'activity', id, page] as const,
  previewable: ['subscribers', { preview: true }] as const,
};

export const listSubscribers = (query: SubscriberFilter & ListQuery) =>
  api.get<ListOf<'subscribers', Subscriber>>(`/subscribers${qs(query)}`);
export const getSubscriber = (id: string) => api.get<FullSubscriber>(`/subscribers/${encodeURIComponent(id)}`);
export const createSubscriber = (body: {
  email: unknown;
  first_name?: unknown;
  last_name?: unknown;
  phone?: unknown;
  time_zone?: unknown;
  group_ids?: string[];
  custom_fields?: Record<string, unknown>;
}) => api.post<Subscriber>('/subscribers', body);
export const updateSubscriber = (id: string, body: SubscriberEdit) =>
  api.put<FullSubscriber>(`/subscribers/${id}`, body);
export const deleteSubscriber = (id: string) => api.del(`/subscribers/${id}`);
export const subscriberActivity = (id: string, query: ListQuery) =>
  api.get<ListOf<'activity', ActivityItem>>(`/subscribers/${id}/activity${qs(query)}`);
export const addNote = (id: string, content: string) => api.post(`/subscribers/${id}/notes`, { content });
export const bulkApply = (body: BulkAction) => api.post<{ affected: number }>('/subscribers/bulk', body);
export const subscribersCsvUrl = (filter: SubscriberFilter) => urlOf(`/subscribers/export${qs(filter)}`);
