// The HTML of a signup form's fields, one definition for the hosted page (/f/{id}) and the embed snippet
// get_form returns, so both post the same names. Everything user-given is escaped; no external assets.
// The honeypot is a text input people never see (off-screen, aria-hidden, not focusable); bots fill it.
import type { FormDesignDoc, FormField } from '../../db/schema/forms.ts';
import type { FieldType } from '../subscribers/fields.ts';
import { resolved } from './design.ts';

/** starts with "_": no custom field key can (fields.ts keys start with a letter), so it never collides */
export const HONEYPOT = '_website';
/** the consent checkbox of the design ("yes" when ticked) */
export const CONSENT = '_consent';
/** the browser's time zone, filled by /f/assets/form.js on the hosted page and in the pop-up */
export const TIME_ZONE = '_tz';
/** when the page was rendered, signed: a submission faster than a person can type is a bot's */
export const RENDERED = '_ts';

export interface FormLike {
  id: string;
  name: string;
  type: string;
  fields: FormField[];
  slug?: string | null;
  design?: FormDesignDoc | null;
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const AUTOCOMPLETE: Record<string, string> = {
  email: 'email',
  first_name: 'given-name',
  last_name: 'family-name',
  phone: 'tel',
};

function inputFor(f: FormField, type: FieldType | undefined, id: string, value: string, describedBy: string): string {
  const common = `id="${id}" name="${escapeHtml(f.key)}"${f.required ? ' required aria-required="true"' : ''}${describedBy ? ` aria-invalid="true" aria-describedby="${describedBy}"` : ''}`;
  if (type === 'boolean') return `<input type="checkbox" ${common} value="true"${value === 'true' ? ' checked' : ''}>`;
  const inputType =
    f.key === 'email'
      ? 'email'
      : f.key === 'phone'
        ? 'tel'
        : type === 'number'
          ? 'number'
          : type === 'date'
            ? 'date'
            : 'text';
  const extra =
    (type === 'number' ? ' step="any"' : '') + (AUTOCOMPLETE[f.key] ? ` autocomplete="${AUTOCOMPLETE[f.key]}"` : '');
  return `<input type="${inputType}" ${common}${extra} value="${escapeHtml(value)}">`;
}

/**
 * The form element. `prefix` keeps element ids unique when several forms share a page (embeds);
 * `values` and `errors` (by field key) re-fill the form after a failed submission.
 */
export function formHtml(
  form: FormLike,
  action: string,
  types: ReadonlyMap<string, FieldType>,
  opts: {
    prefix?: string;
    values?: Record<string, string>;
    errors?: Record<string, string[]>;
    /** the signed render time (hosted page and pop-up); a static embed has none */
    renderedAt?: string;
  } = {},
): string {
  const prefix = opts.prefix ?? 'mg';
  const design = resolved(form.design, form.name);
  const rows = form.fields.map((f) => {
    const id = `${prefix}-${f.key}`;
    const error = opts.errors?.[f.key]?.[0];
    const errorId = error ? `${id}-error` : '';
    const input = inputFor(f, types.get(f.key), id, opts.values?.[f.key] ?? '', errorId);
    const label = `${escapeHtml(f.label)}${f.required ? ' <span aria-hidden="true">*</span>' : ''}`;
    const errorHtml = error ? `<p class="mg-error" id="${errorId}">${escapeHtml(error)}</p>` : '';
    return types.get(f.key) === 'boolean'
      ? `<div class="mg-field mg-check">${input} <label for="${id}">${label}</label>${errorHtml}</div>`
      : `<div class="mg-field"><label for="${id}">${label}</label>${input}${errorHtml}</div>`;
  });
  const honeypot =
    `<div class="mg-hp" aria-hidden="true" style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden">` +
    `<label for="${prefix}-${HONEYPOT}">Leave this field empty</label>` +
    `<input type="text" id="${prefix}-${HONEYPOT}" name="${HONEYPOT}" tabindex="-1" autocomplete="off" value=""></div>`;
  const consentError = opts.errors?.[CONSENT]?.[0];
  const consent = design.consent
    ? `<div class="mg-field mg-check"><input type="checkbox" id="${prefix}${CONSENT}" name="${CONSENT}" value="yes"` +
      `${design.consent.required ? ' required aria-required="true"' : ''}${opts.values?.[CONSENT] === 'yes' ? ' checked' : ''}` +
      `${consentError ? ` aria-invalid="true" aria-describedby="${prefix}${CONSENT}-error"` : ''}> ` +
      `<label for="${prefix}${CONSENT}">${escapeHtml(design.consent.text)}</label>` +
      `${consentError ? `<p class="mg-error" id="${prefix}${CONSENT}-error">${escapeHtml(consentError)}</p>` : ''}</div>`
    : '';
  const hidden =
    `<input type="hidden" name="${TIME_ZONE}" value="">` +
    (opts.renderedAt ? `<input type="hidden" name="${RENDERED}" value="${escapeHtml(opts.renderedAt)}">` : '');
  return (
    `<form class="mg-form" method="post" action="${escapeHtml(action)}" accept-charset="utf-8">\n` +
    rows.map((r) => `  ${r}\n`).join('') +
    (consent ? `  ${consent}\n` : '') +
    `  ${honeypot}${hidden}\n` +
    `  <button type="submit">${escapeHtml(design.button_text)}</button>\n</form>`
  );
}

/** The heading and description above a form's fields (the hosted page and the pop-up). */
export function formIntro(form: FormLike): string {
  const design = resolved(form.design, form.name);
  return (
    `<h1>${escapeHtml(design.heading)}</h1>\n` +
    (design.description ? `<p class="mg-description">${escapeHtml(design.description)}</p>\n` : '')
  );
}

/**
 * The script tag that opens the form as a pop-up or slide-in on a site (delay, scroll or exit intent, as
 * the design says): /f/<slug or id>/embed.js, served by this instance, no third-party code.
 */
export function embedScript(form: FormLike, publicUrl: string): string {
  return `<script src="${escapeHtml(`${publicUrl}/f/${form.slug ?? form.id}/embed.js`)}" async></script>`;
}

/** Markup to paste into a site: the form posting to /f/{id}; a popup type wraps it in a <dialog>. */
export function embedSnippet(form: FormLike, publicUrl: string, types: ReadonlyMap<string, FieldType>): string {
  const prefix = `mg-${form.id.slice(0, 8)}`;
  const html = formHtml(form, `${publicUrl}/f/${form.id}`, types, { prefix });
  if (form.type !== 'popup') return `<!-- Mailgrove form: ${escapeHtml(form.name).replace(/--/g, '- -')} -->\n${html}`;
  const dialogId = `${prefix}-dialog`;
  return (
    `<!-- Mailgrove popup form: ${escapeHtml(form.name).replace(/--/g, '- -')} -->\n` +
    `<dialog id="${dialogId}" aria-label="${escapeHtml(form.name)}">\n${html}\n` +
    `<form method="dialog"><button type="submit">Close</button></form>\n</dialog>\n` +
    `<script>setTimeout(function(){var d=document.getElementById(${JSON.stringify(dialogId)});if(d&&d.showModal&&!d.open)d.showModal();},3000);</script>`
  );
}
