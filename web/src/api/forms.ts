// Signup forms (/app/api/forms): the list, one form with its public URL and embed snippet, create, edit
// (activate, deactivate), delete; and all of them at once (up to 100) for the pickers of other pages.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface Form {
  id: string;
  name: string;
  type: 'hosted' | 'embedded' | 'popup';
  group_ids: string[];
  double_opt_in: boolean;
  fields: { key: string; label: string; required: boolean }[];
  success_message: string;
  redirect_url: string | null;
  active: boolean;
  stats: { views: number; submissions: number; confirmations: number };
  created_at: string;
  updated_at: string;
  /** the readable public address /f/<slug>; the id address works too */
  slug: string | null;
  design: FormDesign;
  /** the double opt-in confirmation mail; all null: the built-in one */
  confirmation_subject: string | null;
  content_format: 'html' | 'blocks';
  content_source: string | null;
}
export interface FormDesign {
  heading?: string;
  description?: string;
  button_text?: string;
  colors?: { accent?: string; background?: string; text?: string };
  consent?: { text: string; required: boolean } | null;
  check_inbox_message?: string;
  confirmed_message?: string;
  popup?: {
    style: 'popup' | 'slide_in';
    trigger: 'delay' | 'scroll' | 'exit';
    delay_seconds: number;
    scroll_percent: number;
  };
}
/** url: /f/<slug> when there is one; embed: the plain HTML form; embed_script: the pop-up script tag */
export type FormWithEmbed = Form & { url: string; embed: string; embed_script: string };

export const formKeys = {
  all: ['forms'] as const,
  page: (page: number) => ['forms', page] as const,
  one: (id: string) => ['forms', 'one', id] as const,
  /** every form, for pickers */
  every: ['forms', 'pick'] as const,
};

export const listForms = (query: ListQuery) => api.get<ListOf<'forms', Form>>(`/forms${qs(query)}`);
export const everyForm = () => listForms({ per_page: 100 });
export const getForm = (id: string) => api.get<FormWithEmbed>(`/forms/${encodeURIComponent(id)}`);
export const createForm = (body: Record<string, unknown>) => api.post<FormWithEmbed>('/forms', body);
export const updateForm = (id: string, body: Record<string, unknown>) =>
  api.put<FormWithEmbed>(`/forms/${encodeURIComponent(id)}`, body);
export const deleteForm = (id: string) => api.del(`/forms/${encodeURIComponent(id)}`);
