// Webhooks (/app/api/webhooks): the list with each one's last delivery, one webhook, create (its signing
// secret is in that answer only), edit, enable and disable, delete, a test event, the delivery log and a
// replay; and the event types a webhook may subscribe to.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface Hook {
  id: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  last_delivery: { at: string; status_code: number | null } | null;
  created_at: string;
}
export interface Attempt {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
  created_at: string;
}
export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  is_test: boolean;
  replay_of: string | null;
  attempt_count: number;
  created_at: string;
  attempts: Attempt[];
}
export interface TestResult {
  status: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}
export interface HookInput {
  url?: string;
  events?: string[];
  name?: string;
  enabled?: boolean;
}

export const webhookKeys = {
  all: ['webhooks'] as const,
  page: (page: number) => ['webhooks', page] as const,
  one: (id: string) => ['webhooks', 'one', id] as const,
  deliveries: (id: string, page: number, filter: DeliveryFilter = {}) =>
    ['webhooks', 'deliveries', id, page, filter] as const,
  events: ['webhook-events'] as const,
};

export const listWebhooks = (query: ListQuery) => api.get<ListOf<'webhooks', Hook>>(`/webhooks${qs(query)}`);
export const getWebhook = (id: string) => api.get<Hook>(`/webhooks/${id}`);
export const createWebhook = (body: HookInput) => api.post<Hook & { secret: string }>('/webhooks', body);
export const updateWebhook = (id: string, body: HookInput) => api.put<Hook>(`/webhooks/${id}`, body);
export const deleteWebhook = (id: string) => api.del(`/webhooks/${id}`);
export const testWebhook = (id: string) => api.post<TestResult>(`/webhooks/${id}/test`);
/** The delivery log's filters: since/until are ISO instants (the page turns picked days into them). */
export interface DeliveryFilter {
  status?: string;
  event?: string;
  since?: string;
  until?: string;
}

export const listDeliveries = (id: string, query: ListQuery & DeliveryFilter) =>
  api.get<ListOf<'deliveries', Delivery>>(`/webhooks/${id}/deliveries${qs(query)}`);
export const replayDelivery = (id: string, deliveryId: string) =>
  api.post(`/webhooks/${id}/deliveries/${deliveryId}/replay`);
export const webhookEvents = () =>
  api.get<ListOf<'events', { type: string; description: string }>>('/webhook-events').then((r) => r.events);
