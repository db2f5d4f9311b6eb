// What a filter can be built from (/app/api/audience): fields by kind (built in and custom), the operators
// each kind takes, the statuses and the groups. The segment builder, forms, automations' conditions and
// campaigns' audience read it.
import { api } from './client.ts';

export interface Audience {
  fields: { field: string; label: string; kind: string; key?: string }[];
  operators: Record<string, string[]>;
  statuses: string[];
  groups: { id: string; name: string }[];
}

export const audienceKeys = { all: ['audience'] as const };

export const getAudience = () => api.get<Audience>('/audience');
