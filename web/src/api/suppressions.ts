// The suppression list (/app/api/suppressions): the list, add one address, add a CSV read in the browser,
// remove one, and the export's address.
import { api, qs, urlOf, type ListOf, type ListQuery } from './client.ts';

export interface Suppression {
  id: string;
  email: string | null;
  reason: 'bounced' | 'complained' | 'forgotten' | 'manual';
  subscriber_id: string | null;
  created_at: string;
}
export interface CsvResult {
  added: number;
  already_listed: number;
  invalid_count: number;
  invalid: { row: number; value: string; reason: string }[];
}

export const suppressionKeys = {
  all: ['suppressions'] as const,
  page: (page: number) => ['suppressions', page] as const,
};

export const listSuppressions = (query: ListQuery) =>
  api.get<ListOf<'suppressions', Suppression>>(`/suppressions${qs(query)}`);
export const addSuppression = (email: unknown) => api.post<Suppression>('/suppressions', { email });
export const addSuppressionCsv = (csv: string) => api.post<CsvResult>('/suppressions/import', { csv });
export const removeSuppression = (id: string) => api.del(`/suppressions/${id}`);
export const suppressionsCsvUrl = urlOf('/suppressions/export');
