// Signup forms of one account: create, get, list, update, remove, and who signed up through each
// Fields are the subscriber's own (email, always required, first_name, last_name,
// phone) or the account's custom fields. Public submission and double opt-in live in signups.ts.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import type { FormField, FormType } from '../../db/schema/forms.ts';
import { NotFound, Validation, type FieldErrors } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import * as subscriberGroups from '../subscribers/groups.ts';
import { ConfirmationFields, confirmationColumns } from './confirmationMail.ts';
import { FormDesign, Slug, type FormDesign as Design } from './design.ts';
import { embedScript, embedSnippet } from './markup.ts';
import { offsetOf, PageQuery, pageOf, type Page } from '../paging.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { hasCredentials } from '../urlCredentials.ts';
import { parseInput } from '../validation.ts';
export type { FormField, FormType, PageQuery };

export const FORM_TYPES = ['hosted', 'embedded', 'popup'] as const satisfies readonly FormType[];
export const BUILT_IN_FIELDS: Record<string, string> = {
  email: 'Email',
  first_name: 'First name',
  last_name: 'Last name',
  phone: 'Phone',
};
export const DEFAULT_SUCCESS = 'Thank you for subscribing!';

const FormFieldInput = z.object({
  key: z.string({ error: 'key is required' }).trim().toLowerCase().min(1, 'key is required').max(63),
  label: z
    .string()
    .trim()
    .min(1, 'Label must not be empty')
    .max(200, 'Label must be at most 200 characters')
    .optional(),
  required: z.boolean({ error: 'required must be true or false' }).optional(),
});

// Raw C0, DEL and C1 controls, or C0 and DEL percent-encoded: the URL goes out in a Location header, and a
// decoded CR LF there would let a form's owner write headers of their own (or a browser split the response).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]|%(?:[01][0-9a-f]|7f)/i;

function redirectProblem(u: string): string | null {
  if (CONTROL.test(u)) return 'redirect_url must not contain control characters';
  if (!/^https?:\/\/[^\s]+$/i.test(u) || !URL.canParse(u)) return 'redirect_url must be an absolute http(s) URL';
  if (hasCredentials(u)) return 'redirect_url must not contain credentials';
  return null;
}

const HttpUrl = z
  .string()
  .trim()
  .max(2000, 'redirect_url must be at most 2000 characters')
  .superRefine((u, ctx) => {
    const problem = redirectProblem(u);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const shape = {
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(255, 'Name must be at most 255 characters'),
  type: z.enum(FORM_TYPES, { error: 'type must be one of: hosted, embedded, popup' }),
  group_ids: z.array(z.guid('Each group id must be a UUID')).max(100, 'At most 100 groups'),
  double_opt_in: z.boolean({ error: 'double_opt_in must be true or false' }),
  fields: z.array(FormFieldInput).max(30, 'At most 30 fields'),
  success_message: z
    .string()
    .trim()
    .min(1, 'success_message must not be empty')
    .max(2000, 'success_message must be at most 2000 characters'),
  redirect_url: HttpUrl.nullable(),
  active: z.boolean({ error: 'active must be true or false' }),
  // the double opt-in confirmation mail: content_source in content_format (html or blocks), with {{ confirm_url }}
  ...ConfirmationFields,
  slug: Slug,
  design: FormDesign,
};

export const NewForm = z.object({
  name: shape.name,
  type: shape.type.default('hosted'),
  group_ids: shape.group_ids.default([]),
  double_opt_in: shape.double_opt_in.default(false),
  fields: shape.fields.optional(),
  success_message: shape.success_message.default(DEFAULT_SUCCESS),
  redirect_url: shape.redirect_url.default(null),
  active: shape.active.default(true),
  confirmation_subject: shape.confirmation_subject.optional(),
  content_format: shape.content_format.optional(),
  content_source: shape.content_source,
  slug: shape.slug.default(null),
  design: shape.design.default({}),
});
export type NewForm = z.input<typeof NewForm>;

export const FormUpdate = z.object(shape).partial();
export type FormUpdate = z.input<typeof FormUpdate>;

type Row = NonNullable<Awaited<ReturnType<typeof repo.findById>>>;
export type FormRow = Row;
/** A subscriber who signed up through a form, with when. */
export type Signup = Awaited<ReturnType<typeof repo.signups>>[number];

export interface Form {
  id: string;
  name: string;
  type: FormType;
  group_ids: string[];
  double_opt_in: boolean;
  fields: FormField[];
  success_message: string;
  redirect_url: string | null;
  active: boolean;
  stats: { views: number; submissions: number; confirmations: number };
  created_at: Date;
  updated_at: Date;
  /** the author's confirmation mail; null subject and source: the built-in one */
  confirmation_subject: string | null;
  content_format: 'html' | 'blocks';
  content_source: string | null;
  /** the readable public address /f/<slug>, beside /f/<id> */
  slug: string | null;
  design: Design;
}

export async function create(db: Db, accountId: string, input: unknown): Promise<Form> {
  const { confirmation_subject, content_format, content_source, ...a } = parseInput(NewForm, input);
  const confirmation = await confirmationColumns({ confirmation_subject, content_format, content_source });
  const formFields = await resolveFields(db, accountId, a.fields ?? []);
  const groupIds = await subscribers.checkGroups(db, accountId, a.group_ids);
  const { design, ...plain } = a;
  const row = await repo.insertForm(db, {
    ...plain,
    design: JSON.stringify(design),
    ...confirmation,
    account_id: accountId,
    group_ids: groupIds,
    fields: JSON.stringify(formFields),
  });
  return (await present(db, accountId, [row]))[0]!;
}

export async function get(db: Db, accountId: string, id: string): Promise<Form> {
  const row = await repo.findById(db, accountId, id);
  if (!row) throw new NotFound('Form not found');
  return (await present(db, accountId, [row]))[0]!;
}

/** The form plus what an agent needs to publish it: the hosted page URL and an embeddable snippet. */
export async function getWithEmbed(
  db: Db,
  accountId: string,
  id: string,
  publicUrl: string,
): Promise<Form & { url: string; embed: string; embed_script: string }> {
  const form = await get(db, accountId, id);
  const types = await fields.definitions(db, accountId);
  return {
    ...form,
    url: publicAddress(form, publicUrl),
    embed: embedSnippet(form, publicUrl, types),
    embed_script: embedScript(form, publicUrl),
  };
}

/** The hosted page's address: /f/<slug> when the form has one, /f/<id> otherwise (which always works). */
export function publicAddress(form: { id: string; slug: string | null }, publicUrl: string): string {
  return `${publicUrl}/f/${form.slug ?? form.id}`;
}

export async function list(db: Db, accountId: string, query: unknown = {}): Promise<Page<Form>> {
  const p = parseInput(PageQuery, query);
  const rows = await repo.page(db, accountId, p.per_page, offsetOf(p));
  return pageOf(await present(db, accountId, rows), p, await repo.count(db, accountId));
}

export async function update(db: Db, accountId: string, id: string, input: unknown): Promise<Form> {
  const u = parseInput(FormUpdate, input);
  if (Object.keys(u).length === 0) throw Validation.field('_', 'Give at least one field to change');
  const before = await repo.findById(db, accountId, id);
  if (!before) throw new NotFound('Form not found');
  const { fields: newFields, group_ids, confirmation_subject, content_format, content_source, design, ...rest } = u;
  const confirmation = await confirmationColumns({ confirmation_subject, content_format, content_source }, before);
  const row = await repo.update(db, accountId, id, {
    ...rest,
    ...confirmation,
    ...(design !== undefined && { design: JSON.stringify(design) }),
    ...(newFields !== undefined && { fields: JSON.stringify(await resolveFields(db, accountId, newFields)) }),
    ...(group_ids !== undefined && { group_ids: await subscribers.checkGroups(db, accountId, group_ids) }),
  });
  if (!row) throw new NotFound('Form not found');
  return (await present(db, accountId, [row]))[0]!;
}

/** Deletes the form with its pending signups and signup records; the subscribers stay. */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await repo.remove(db, accountId, id))) throw new NotFound('Form not found');
}

/** Subscribers who signed up through the form (confirmed, for double opt-in), latest signup first. */
export async function signups(db: Db, accountId: string, id: string, query: unknown = {}): Promise<Page<Signup>> {
  const p = parseInput(PageQuery, query);
  if (!(await repo.findById(db, accountId, id))) throw new NotFound('Form not found');
  const [rows, total] = [
    await repo.signups(db, accountId, id, p.per_page, offsetOf(p)),
    await repo.countSignups(db, accountId, id),
  ];
  return pageOf(rows, p, total);
}

/**
 * Checks field keys against the subscriber columns and the account's custom fields, fills labels, and
 * makes email present and required (a signup without an address is no signup).
 */
export async function resolveFields(
  db: Db,
  accountId: string,
  input: z.output<typeof FormFieldInput>[],
): Promise<FormField[]> {
  const custom = new Map((await fields.list(db, accountId)).map((d) => [d.key, d.name]));
  const errors: FieldErrors = {};
  const seen = new Set<string>();
  const out: FormField[] = [];
  input.forEach((f, i) => {
    const label = BUILT_IN_FIELDS[f.key] ?? custom.get(f.key);
    if (label === undefined)
      errors[`fields.${i}.key`] = [
        `Unknown field: ${f.key} (use email, first_name, last_name, phone or a custom field key)`,
      ];
    else if (seen.has(f.key)) errors[`fields.${i}.key`] = [`Duplicate field: ${f.key}`];
    else out.push({ key: f.key, label: f.label ?? label, required: f.key === 'email' ? true : (f.required ?? false) });
    seen.add(f.key);
  });
  if (Object.keys(errors).length > 0) throw Validation.of(errors);
  return seen.has('email') ? out : [{ key: 'email', label: 'Email', required: true }, ...out];
}

/** API view of rows: stats grouped, account_id dropped, group ids of deleted groups left out. */
export async function present(db: Db, accountId: string, rows: Row[]): Promise<Form[]> {
  const live = await subscriberGroups.existingIds(db, accountId, [...new Set(rows.flatMap((r) => r.group_ids))]);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    type: r.type,
    group_ids: r.group_ids.filter((g) => live.has(g)),
    double_opt_in: r.double_opt_in,
    fields: r.fields,
    success_message: r.success_message,
    redirect_url: r.redirect_url,
    active: r.active,
    stats: { views: r.views, submissions: r.submissions, confirmations: r.confirmations },
    created_at: r.created_at,
    updated_at: r.updated_at,
    confirmation_subject: r.confirmation_subject,
    content_format: r.confirmation_format,
    content_source: r.confirmation_source,
    slug: r.slug,
    design: r.design ?? {},
  }));
}
