// The outbox (/app/api/outbox): mail captured while no SMTP server is set, newest first; one message, and
// the address of its HTML, which the server sends under a no-network sandbox.
import { api, qs, urlOf, type ListOf, type ListQuery } from './client.ts';

export interface MessageSummary {
  id: string;
  message_id: string;
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
}
export interface Message extends MessageSummary {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
}

export const outboxKeys = {
  all: ['outbox'] as const,
  page: (page: number, search = '') => ['outbox', page, search] as const,
  one: (id: string) => ['outbox', 'one', id] as const,
};

export const listOutbox = (query: ListQuery & { search?: string }) =>
  api.get<ListOf<'messages', MessageSummary>>(`/outbox${qs(query)}`);
export const getMessage = (id: string) => api.get<Message>(`/outbox/${encodeURIComponent(id)}`);
export const messageHtmlUrl = (id: string) => urlOf(`/outbox/${encodeURIComponent(id)}/html`);
