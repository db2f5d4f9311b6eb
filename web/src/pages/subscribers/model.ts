// What the subscriber pages read besides one subscriber: the account's custom fields (in the order they
// were defined) and groups, each one cached query shared by the pages that show them.
import { useQuery } from '@tanstack/react-query';
import { everyGroup, groupKeys } from '../../api/groups.ts';
import { listFields, settingsKeys, type FieldType } from '../../api/settings.ts';

export type { CustomField, FieldType } from '../../api/settings.ts';
export type { FullSubscriber } from '../../api/subscribers.ts';

export const FIELD_TYPES: { type: FieldType; label: string }[] = [
  { type: 'text', label: 'Text' },
  { type: 'number', label: 'Number' },
  { type: 'date', label: 'Date' },
  { type: 'boolean', label: 'Yes / no' },
];

export function useFields() {
  return useQuery({
    queryKey: settingsKeys.fields,
    queryFn: async () => {
      const { fields } = await listFields();
      return [...fields].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.key.localeCompare(b.key));
    },
  });
}

export function useGroups() {
  return useQuery({ queryKey: groupKeys.every, queryFn: everyGroup });
}
