// Groups (/app/api/groups): the list with subscriber and active counts, create, rename, delete; and all of
// them at once (up to 100) for the pickers of other pages.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface Group {
  id: string;
  name: string;
  subscriber_count: number;
  active_count: number;
  created_at: string;
}

export const groupKeys = {
  all: ['groups'] as const,
  page: (page: number) => ['groups', page] as const,
  /** every group, for pickers */
  every: ['groups', 'all'] as const,
};

export const listGroups = (query: ListQuery) => api.get<ListOf<'groups', Group>>(`/groups${qs(query)}`);
export const everyGroup = () => listGroups({ per_page: 100 });
export const createGroup = (name: unknown) => api.post<Group>('/groups', { name });
export const renameGroup = (id: string, name: unknown) => api.put<Group>(`/groups/${id}`, { name });
export const deleteGroup = (id: string) => api.del(`/groups/${id}`);
