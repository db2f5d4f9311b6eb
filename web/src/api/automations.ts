// Automations (/app/api/automations): the list, one automation, create, edit, turn on and off, delete,
// its runs and the stats of the emails each step sent.
import type { Engagement } from './campaigns.ts';
import { api, qs, type ListOf, type ListQuery } from './client.ts';
import type { WireFilter as Filter } from './segments.ts';

export type Unit = 'minutes' | 'hours' | 'days';
export type Match = 'all' | 'any';
export type RunStatus = 'active' | 'completed' | 'canceled' | 'failed';

export type Trigger =
  | { type: 'subscriber_created'; source?: string }
  | { type: 'joined_group'; group_id: string }
  | { type: 'form_submitted'; form_id: string }
  | { type: 'campaign_opened'; campaign_id?: string }
  | { type: 'link_clicked'; campaign_id?: string; url?: string }
  | { type: 'date_anniversary'; field: string };
export type TriggerType = Trigger['type'];

/** A condition's rules are segment rules: the same wire shape and operators. */
export type { WireRule as Rule, WireFilter as Filter } from './segments.ts';

export type Step =
  | { type: 'delay'; amount: number; unit: Unit }
  | {
      type: 'send_email';
      subject: string;
      /** the HTML of an HTML step; a blocks step's is rendered from its document */
      content_html?: string;
      from_name?: string;
      from_email?: string;
      /** `blocks`: content_source is the visual editor's document, rendered by the server */
      content_format?: 'html' | 'blocks';
      content_source?: string | null;
    }
  | { type: 'add_to_group' | 'remove_from_group'; group_id: string }
  | { type: 'update_field'; field: string; value: string | number | boolean | null }
  | { type: 'condition'; filter: Filter; then: Step[]; else: Step[] };
export type StepType = Step['type'];

export interface Stats extends Engagement {
  started: number;
  active: number;
  completed: number;
  canceled: number;
  failed: number;
  emails_sent: number;
}
export interface Automation {
  id: string;
  name: string;
  enabled: boolean;
  trigger: Trigger;
  steps: Step[];
  stats: Stats;
  created_at: string;
  updated_at: string;
}
export interface Run {
  id: string;
  subscriber: { id: string; email: string };
  status: RunStatus;
  current_step: { path: string; type: StepType | null } | null;
  next_run_at: string | null;
  emails_sent: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}
export interface StepEmails extends Engagement {
  path: string;
  subject: string | null;
  sent: number;
  failed: number;
}

export interface AutomationInput {
  name?: string;
  enabled?: boolean;
  trigger?: Trigger;
  steps?: Step[];
}

export const automationKeys = {
  all: ['automations'] as const,
  lists: ['automations', 'list'] as const,
  list: (page: number) => ['automations', 'list', page] as const,
  one: (id: string) => ['automations', 'one', id] as const,
  emails: (id: string) => ['automations', 'emails', id] as const,
  runs: (id: string, status: string, page: number) => ['automations', 'runs', id, status, page] as const,
};

const one = (id: string) => `/automations/${encodeURIComponent(id)}`;
export const listAutomations = (query: ListQuery) =>
  api.get<ListOf<'automations', Automation>>(`/automations${qs(query)}`);
export const getAutomation = (id: string) => api.get<Automation>(one(id));
export const createAutomation = (body: AutomationInput) => api.post<Automation>('/automations', body);
export const updateAutomation = (id: string, body: AutomationInput) => api.put<Automation>(one(id), body);
export const setAutomationEnabled = (id: string, on: boolean) =>
  api.post<Automation>(`${one(id)}/${on ? 'enable' : 'disable'}`);
export const deleteAutomation = (id: string) => api.del(one(id));
export const listRuns = (id: string, query: ListQuery) =>
  api.get<ListOf<'runs', Run>>(`${one(id)}/activity${qs(query)}`);
export const stepEmails = (id: string) => api.get<ListOf<'steps', StepEmails>>(`${one(id)}/emails`);
