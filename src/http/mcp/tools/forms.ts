// MCP tools for signup forms (spec scopes forms:read: list_forms, get_form, get_form_subscribers;
// forms:write: update_form, delete_form). Forms are created through REST (POST /api/v1/external/forms)
// until the dashboard exists; the public pages are /f/{id} and /f/confirm/{token}.
import { z } from 'zod';
import * as forms from '../../../domain/forms/forms.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const FormId = z.guid('form_id must be a UUID').describe('The form id (UUID), as returned by list_forms.');

const FORM_SHAPE =
  '{id, name, type (hosted|embedded|popup), group_ids, double_opt_in, fields [{key, label, required}], success_message, redirect_url, ' +
  'active, stats {views, submissions, confirmations}, created_at, updated_at}';

const listForms = defineTool({
  name: 'list_forms',
  title: 'List signup forms',
  scope: 'forms:read',
  description:
    `List the signup forms of the account, newest first, 25 per page by default. Each form is ${FORM_SHAPE}. ` +
    'stats.views counts hosted-page views, submissions valid signups, confirmations confirmed double opt-in signups.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Form),
  input: z.object({ ...PageArgs }),
  async run(ctx, a) {
    return listResult(await forms.list(ctx.db, ctx.key.accountId, a));
  },
});

const getForm = defineTool({
  name: 'get_form',
  title: 'Get a signup form',
  scope: 'forms:read',
  description:
    `Get one form: ${FORM_SHAPE}, plus url (the hosted page to link to) and embed (HTML markup to paste into a website; it posts to ` +
    'the same endpoint, and a popup form comes wrapped in a <dialog>). Fails with "Form not found" for an unknown form_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.single(out.FormWithEmbed),
  input: z.object({ form_id: FormId }),
  async run(ctx, a) {
    return { data: await forms.getWithEmbed(ctx.db, ctx.key.accountId, a.form_id, ctx.config.publicUrl) };
  },
});

const getFormSubscribers = defineTool({
  name: 'get_form_subscribers',
  title: 'List the subscribers who signed up through a form',
  scope: 'forms:read',
  description:
    'List the subscribers who signed up through a form (for double opt-in forms: those who confirmed), latest signup first, 25 per ' +
    'page by default; each item has id, email, first_name, last_name, status, created_at and signed_up_at. ' +
    'Fails with "Form not found" for an unknown form_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.FormSignup),
  input: z.object({ form_id: FormId, ...PageArgs }),
  async run(ctx, { form_id, ...page }) {
    return listResult(await forms.signups(ctx.db, ctx.key.accountId, form_id, page));
  },
});

const updateForm = defineTool({
  name: 'update_form',
  title: 'Update a signup form',
  scope: 'forms:write',
  description:
    "Change any of a form's settings; only the fields given change. fields replaces the whole field list: keys are email (always " +
    'present and required; added when missing), first_name, last_name, phone or a custom field key of the account. group_ids must be ' +
    'groups of the account (new signups join them). double_opt_in sends a confirmation email before anyone is subscribed. ' +
    'active=false takes the public form offline. Fails with "Form not found" for an unknown form_id.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  output: out.single(out.Form),
  input: z.object({
    form_id: FormId,
    name: forms.FormUpdate.shape.name.describe('Form name shown as the hosted page title.'),
    type: forms.FormUpdate.shape.type.describe('hosted, embedded or popup.'),
    group_ids: forms.FormUpdate.shape.group_ids.describe('Groups every signup joins (replaces the list).'),
    double_opt_in: forms.FormUpdate.shape.double_opt_in.describe('Require email confirmation before subscribing.'),
    fields: forms.FormUpdate.shape.fields.describe('The form fields in order: [{key, label?, required?}].'),
    success_message: forms.FormUpdate.shape.success_message.describe(
      'Text shown after a successful (or confirmed) signup.',
    ),
    redirect_url: forms.FormUpdate.shape.redirect_url.describe(
      'http(s) URL to send people to instead of the success message; null to clear.',
    ),
    active: forms.FormUpdate.shape.active.describe('false takes the public form offline (its page answers 404).'),
  }),
  async run(ctx, { form_id, ...changes }) {
    return { data: await forms.update(ctx.db, ctx.key.accountId, form_id, changes) };
  },
});

const deleteForm = defineTool({
  name: 'delete_form',
  title: 'Delete a signup form',
  scope: 'forms:write',
  description:
    'Delete a form permanently, with its unconfirmed double opt-in signups; its public page stops working. Subscribers who signed up ' +
    'through it are NOT deleted. Fails with "Form not found" for an unknown form_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ form_id: FormId }),
  async run(ctx, a) {
    await forms.remove(ctx.db, ctx.key.accountId, a.form_id);
    return { data: { id: a.form_id, deleted: true } };
  },
});

export const formTools: Tool[] = [listForms, getForm, getFormSubscribers, updateForm, deleteForm];
