// The HTML pages of the public form routes: the hosted form, and the result pages (thanks, check your
// inbox, errors). Self-contained (inline CSS, no scripts, no external assets), escaped, and readable by
// screen readers: one h1, labelled inputs, errors tied to their input and announced.
import { DEFAULT_CHECK_INBOX, resolved } from '../../domain/forms/design.ts';
import type { FormLike } from '../../domain/forms/markup.ts';
import { escapeHtml, formHtml, formIntro } from '../../domain/forms/markup.ts';
import type { FieldType } from '../../domain/subscribers/fields.ts';
import { icon, publicPage } from './publicPage.ts';

// no scripts at all, inline styles only. No form-action: browsers apply it to the redirect after a
// submission too, which would block a form's redirect_url on another site.
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'";
// the hosted form page runs one script, ours, from this origin (FORM_SCRIPT_PATH): it fills the hidden
// time-zone field. Nothing inline runs, so text that slipped past escaping could still not execute.
export const FORM_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'";
export const FORM_SCRIPT_PATH = '/f/assets/form.js';

/** The browser's IANA zone into every hidden _tz field of the page (ES5: old phones sign up too). */
export const FORM_SCRIPT =
  "(function(){var z='';try{z=Intl.DateTimeFormat().resolvedOptions().timeZone||''}catch(e){}" +
  'var f=document.querySelectorAll(\'input[name="_tz"]\');for(var i=0;i<f.length;i++)f[i].value=z;})();\n';

/** The design's colours as CSS: #rrggbb values only (FormDesign), so nothing else can get in. */
function designCss(form: FormLike, embedded: boolean): string {
  const { colors } = resolved(form.design, form.name);
  return (
    `main{background:${colors.background};color:${colors.text}}button{background:${colors.accent}}` +
    `button:hover{background:${colors.accent};filter:brightness(.9)}a{color:${colors.accent}}` +
    `.mg-description{margin:0 0 1.25rem}h1,label,.mg-description{overflow-wrap:anywhere}` +
    (embedded
      ? `body{padding:0;background:${colors.background}}main{margin:0;border:0;box-shadow:none;max-width:none}`
      : '')
  );
}

export function formPage(
  form: FormLike,
  action: string,
  types: ReadonlyMap<string, FieldType>,
  state: {
    values?: Record<string, string>;
    errors?: Record<string, string[]>;
    renderedAt?: string;
    embedded?: boolean;
  } = {},
): string {
  const alert =
    state.errors && Object.keys(state.errors).length > 0
      ? `<p class="mg-alert" role="alert">Please correct the highlighted fields.</p>\n`
      : '';
  return publicPage(
    resolved(form.design, form.name).heading,
    `${formIntro(form)}${alert}${formHtml(form, action, types, state)}\n<script src="${FORM_SCRIPT_PATH}"></script>`,
    designCss(form, state.embedded ?? false),
  );
}

export function messagePage(title: string, message: string, mark?: 'done' | 'problem'): string {
  return publicPage(
    title,
    `${mark ? icon(mark) : ''}<h1>${escapeHtml(title)}</h1>\n<p role="status">${escapeHtml(message)}</p>`,
  );
}

/** After a double opt-in signup: the mail is on its way, the signup counts only once its link is opened. */
export function checkInboxPage(formName: string, message = MESSAGES.checkInbox): string {
  return publicPage(
    'Check your inbox',
    `${icon('mail')}<p class="mg-from">${escapeHtml(formName)}</p>\n<h1>Check your inbox</h1>\n` +
      `<p role="status">${escapeHtml(message)}</p>\n` +
      `<p class="mg-note">The link is valid for 7 days. Nothing arrived? Look in your spam folder, or send the form again after 10 minutes.</p>`,
  );
}

export const MESSAGES = {
  checkInbox: DEFAULT_CHECK_INBOX,
  notFound: 'This form does not exist or is no longer accepting signups.',
  tooMany: 'Too many attempts from your network. Please wait a minute and try again.',
  mailFailed: 'We could not send the confirmation email right now. Please try again in a few minutes.',
  full: 'This list cannot accept new signups right now.',
  invalidLink:
    'This confirmation link is not valid. It may be incomplete, or the signup was removed. Please sign up again.',
  expiredLink: 'This confirmation link has expired (links are valid for 7 days). Please sign up again.',
};
