// The HTML pages of the public form routes: the hosted form, and the result pages (thanks, check your
// inbox, errors). Self-contained (inline CSS, no scripts, no external assets), escaped, and readable by
// screen readers: one h1, labelled inputs, errors tied to their input and announced.
import type { FormLike } from '../../domain/forms/markup.ts';
import { escapeHtml, formHtml } from '../../domain/forms/markup.ts';
import type { FieldType } from '../../domain/subscribers/fields.ts';
import { icon, publicPage } from './publicPage.ts';

// no scripts at all, inline styles only. No form-action: browsers apply it to the redirect after a
// submission too, which would block a form's redirect_url on another site.
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'";

export function formPage(
  form: FormLike,
  action: string,
  types: ReadonlyMap<string, FieldType>,
  state: { values?: Record<string, string>; errors?: Record<string, string[]> } = {},
): string {
  const alert =
    state.errors && Object.keys(state.errors).length > 0
      ? `<p class="mg-alert" role="alert">Please correct the highlighted fields.</p>\n`
      : '';
  return publicPage(form.name, `<h1>${escapeHtml(form.name)}</h1>\n${alert}${formHtml(form, action, types, state)}`);
}

export function messagePage(title: string, message: string, mark?: 'done' | 'problem'): string {
  return publicPage(
    title,
    `${mark ? icon(mark) : ''}<h1>${escapeHtml(title)}</h1>\n<p role="status">${escapeHtml(message)}</p>`,
  );
}

/** After a double opt-in signup: the mail is on its way, the signup counts only once its link is opened. */
export function checkInboxPage(formName: string): string {
  return publicPage(
    'Check your inbox',
    `${icon('mail')}<p class="mg-from">${escapeHtml(formName)}</p>\n<h1>Check your inbox</h1>\n` +
      `<p role="status">${escapeHtml(MESSAGES.checkInbox)}</p>\n` +
      `<p class="mg-note">The link is valid for 7 days. Nothing arrived? Look in your spam folder, or send the form again after 10 minutes.</p>`,
  );
}

export const MESSAGES = {
  checkInbox: 'Almost done: we have sent you an email. Please open the link in it to confirm your subscription.',
  notFound: 'This form does not exist or is no longer accepting signups.',
  tooMany: 'Too many attempts from your network. Please wait a minute and try again.',
  mailFailed: 'We could not send the confirmation email right now. Please try again in a few minutes.',
  full: 'This list cannot accept new signups right now.',
  invalidLink:
    'This confirmation link is not valid. It may be incomplete, or the signup was removed. Please sign up again.',
  expiredLink: 'This confirmation link has expired (links are valid for 7 days). Please sign up again.',
};
