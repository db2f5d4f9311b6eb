// What the subscriber pages read besides one subscriber: the account's custom fields (in the order they
// were defined) and groups, each one cached query shared by the pages that show them.
import { useQuery } from '@tanstack/react-query';
import { api, type Subscriber } from '../../api.ts';

export interface FullSubscriber extends Subscriber {
  groups: { id: string; name: string }[];
  notes: { id: string; content: string; created_at: string }[];
}

export type FieldType = 'text' | 'number' | 'date' | 'boolean';
export interface CustomField {
  id: string;
  key: string;
  name: string;
  type: FieldType;
  created_at: string;
}

export const FIELD_TYPES: { type: FieldType; label: string }[] = [
  { type: 'text', label: 'Text' },
  { type: 'number', label: 'Number' },
  { type: 'date', label: 'Date' },
  { type: 'boolean', label: 'Yes / no' },
];

export function useFields() {
  return useQuery({
    queryKey: ['fields'],
    queryFn: async () => {
      const { fields } = await api.get<{ fields: CustomField[] }>('/fields');
      return [...fields].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.key.localeCompare(b.key));
    },
  });
}

export function useGroups() {
  return useQuery({
    queryKey: ['groups', 'all'],
    queryFn: () => api.get<{ groups: { id: string; name: string }[] }>('/groups?per_page=100'),
  });
}
