// What the visual email editor asks the server for (/app/api): the account's image library (upload, list,
// delete), templates (starters and saved ones, save, delete), the render of a block document (the live
// preview, through the same renderer as sends), the merge tags a subscriber has, and subscribers to preview as.
import type { BlockDocument } from '../editor/document.ts';
import { getAudience } from './audience.ts';
import { api, qs, type ListOf, type ListQuery } from './client.ts';
import { listSubscribers, type Subscriber } from './subscribers.ts';

export interface Image {
  id: string;
  url: string;
  content_type: string;
  width: number;
  height: number;
  size: number;
  created_at?: string;
}
export type TemplateKind = 'campaign' | 'automation' | 'confirmation';
export interface Template {
  id: string;
  /** a starter's word ("newsletter"); null for saved templates */
  key: string | null;
  name: string;
  kind: 'starter' | 'saved';
  document: BlockDocument;
  thumbnail_html?: string;
}
export interface RenderedBlocks {
  html: string;
  text: string;
}
/** A field a message can be personalised with, and the Liquid that inserts it with its fallback. */
export interface MergeTag {
  label: string;
  /** the Liquid path, e.g. subscriber.first_name */
  path: string;
  /** the fallback offered when the subscriber has none */
  fallback: string;
  /** a value every message has (a link): inserted without a fallback */
  always?: boolean;
}

export const editorKeys = {
  images: (page: number) => ['images', page] as const,
  allImages: ['images'] as const,
  templates: (kind: TemplateKind) => ['templates', kind] as const,
  allTemplates: ['templates'] as const,
  render: (document: string, subscriberId: string) => ['blocks-render', document, subscriberId] as const,
  mergeTags: ['merge-tags'] as const,
  previewPeople: (search: string) => ['subscribers', 'preview-as', search] as const,
  confirmation: (settings: string) => ['confirmation-render', settings] as const,
};

export const uploadImage = (file: File | Blob, name = 'image') => {
  const form = new FormData();
  form.append('file', file, file instanceof File ? file.name : name);
  return api.upload<Image>('/images', form);
};
export const listImages = (query: ListQuery = {}) => api.get<ListOf<'images', Image>>(`/images${qs(query)}`);
export const deleteImage = (id: string) => api.del(`/images/${encodeURIComponent(id)}`);

export const listTemplates = (kind: TemplateKind) =>
  api.get<{ templates: Template[] }>(`/templates${qs({ kind })}`).then((r) => r.templates);
export const saveTemplate = (body: { name: string; document: BlockDocument } | { name: string; campaign_id: string }) =>
  api.post<Template>('/templates', body);
export const deleteTemplate = (id: string) => api.del(`/templates/${encodeURIComponent(id)}`);

/** The document as subscribers would get it; with a subscriber, their Liquid values, else sample ones. */
export const renderBlocks = (document: BlockDocument, subscriberId?: string) =>
  api.post<RenderedBlocks>('/blocks/render', { document, subscriber_id: subscriberId || undefined });

const BUILT_IN: Record<string, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'Email',
  phone: 'Phone',
};
const FALLBACKS: Record<string, string> = { first_name: 'there', last_name: '' };

/** Every field a subscriber has, built in and the account's custom fields, as merge tags. */
export async function mergeTags(): Promise<MergeTag[]> {
  const audience = await getAudience();
  const custom = audience.fields
    .filter((f) => f.key)
    .map((f) => ({ label: f.label, path: `subscriber.custom_fields.${f.key}`, fallback: '' }));
  return [
    ...Object.entries(BUILT_IN).map(([k, label]) => ({ label, path: `subscriber.${k}`, fallback: FALLBACKS[k] ?? '' })),
    ...custom,
  ];
}

/** The Liquid of a merge tag: with a fallback when one is given, since an empty value reads badly. */
export function mergeTagLiquid(path: string, fallback: string): string {
  return fallback ? `{{ ${path} | default: ${JSON.stringify(fallback)} }}` : `{{ ${path} }}`;
}

/** A form's double opt-in confirmation mail as the form stores it; all null: the built-in mail. */
export interface FormConfirmation {
  confirmation_subject: string | null;
  content_format: 'html' | 'blocks';
  content_source: string | null;
}
export interface RenderedConfirmation {
  subject: string;
  html: string;
  text: string;
}

/** The confirmation mail these settings would send, for a sample signup (the built-in one when no content). */
export const renderConfirmation = (body: Partial<FormConfirmation>) =>
  api.post<RenderedConfirmation>('/confirmation/render', body);
/** Saves a form's confirmation mail (the form's own PUT, with only these fields). */
export const saveConfirmation = (formId: string, body: FormConfirmation) =>
  api.put<FormConfirmation & { updated_at: string }>(`/forms/${encodeURIComponent(formId)}`, body);

/** Subscribers whose address or name matches, to preview a message as one of them. */
export const findPreviewPeople = (search: string): Promise<Subscriber[]> =>
  listSubscribers({ search: search || undefined, per_page: 8 }).then((r) => r.subscribers);
