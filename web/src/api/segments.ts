// Segments (/app/api/segments): the list, one segment with its count, create, edit, delete, the live count
// of a filter not saved yet, and all of them at once (up to 100) for the pickers of other pages.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface WireRule {
  field: string;
  operator: string;
  value?: unknown;
}
/** A filter as the API takes it: rules and nested groups of rules, all or any of them. */
export interface WireFilter {
  match: 'all' | 'any';
  rules: (WireRule | WireFilter)[];
}
export interface Segment {
  id: string;
  name: string;
  filter: WireFilter;
  subscriber_count: number;
  created_at: string;
  updated_at: string;
}
export interface SegmentInput {
  name: string;
  filter?: WireFilter;
}

export const segmentKeys = {
  all: ['segments'] as const,
  page: (page: number) => ['segments', page] as const,
  one: (id: string) => ['segments', 'one', id] as const,
  /** every segment, for pickers */
  every: ['segments', 'all'] as const,
  draftCount: (filter: string) => ['segments', 'count', filter] as const,
};

export const listSegments = (query: ListQuery) => api.get<ListOf<'segments', Segment>>(`/segments${qs(query)}`);
export const everySegment = () => listSegments({ per_page: 100 });
export const getSegment = (id: string) => api.get<Segment>(`/segments/${encodeURIComponent(id)}`);
export const createSegment = (body: SegmentInput) => api.post<Segment>('/segments', body);
export const updateSegment = (id: string, body: SegmentInput) =>
  api.put<Segment>(`/segments/${encodeURIComponent(id)}`, body);
export const deleteSegment = (id: string) => api.del(`/segments/${encodeURIComponent(id)}`);
export const countDraft = (filter: unknown) => api.post<{ count: number }>('/segments/count', { filter });
