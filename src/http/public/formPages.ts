// The HTML pages of the public form routes: the hosted form, and the result pages (thanks, check your
// inbox, errors). Self-contained (inline CSS, no scripts, no external assets), escaped, and readable by
// screen readers: one h1, labelled inputs, errors tied to their input and announced.
import type { FormLike } from '../../domain/forms/markup.ts';
import { escapeHtml, formHtml } from '../../domain/forms/markup.ts';
import type { FieldType } from '../../domain/subscribers/fields.ts';

// no scripts at all, inline styles only. No form-action: browsers apply it to the redirect after a
// submission too, which would block a form's redirect_url on another site.
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'";

const CSS = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1c1e21}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.5rem;margin:0 0 1rem}
.mg-field{margin:0 0 1rem}
.mg-field label{display:block;font-weight:600;margin-bottom:.25rem}
.mg-check label{display:inline;font-weight:400}
input[type=text],input[type=email],input[type=tel],input[type=number],input[type=date]{box-sizing:border-box;width:100%;padding:.5rem;border:1px solid #8a8d91;border-radius:.25rem;font:inherit}
input:focus,button:focus{outline:3px solid #1a73e8;outline-offset:1px}
.mg-error{color:#b00020;margin:.25rem 0 0}
.mg-alert{border:1px solid #b00020;color:#b00020;padding:.5rem;border-radius:.25rem}
button{padding:.6rem 1.2rem;border:0;border-radius:.25rem;background:#1a5fb4;color:#fff;font:inherit;font-weight:600;cursor:pointer}
`;

export function page(title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="robots" content="noindex">\n<title>${escapeHtml(title)}</title>\n<style>${CSS}</style>\n</head>\n` +
    `<body>\n<main>\n${body}\n</main>\n</body>\n</html>\n`
  );
}

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
  return page(form.name, `<h1>${escapeHtml(form.name)}</h1>\n${alert}${formHtml(form, action, types, state)}`);
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="status">${escapeHtml(message)}</p>`);
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
