// The HTML of a signup form's fields, one definition for the hosted page (/f/{id}) and the embed snippet
// get_form returns, so both post the same names. Everything user-given is escaped; no external assets.
// The honeypot is a text input people never see (off-screen, aria-hidden, not focusable); bots fill it.
import type { FormField } from '../../db/schema/forms.ts';
import type { FieldType } from '../subscribers/fields.ts';

/** starts with "_": no custom field key can (fields.ts keys start with a letter), so it never collides */
export const HONEYPOT = '_website';

export interface FormLike {
  id: string;
  name: string;
  type: string;
  fields: FormField[];
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
    submitLabel?: string;
  } = {},
): string {
  const prefix = opts.prefix ?? 'mg';
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
  return (
    `<form class="mg-form" method="post" action="${escapeHtml(action)}" accept-charset="utf-8">\n` +
    rows.map((r) => `  ${r}\n`).join('') +
    `  ${honeypot}\n` +
    `  <button type="submit">${escapeHtml(opts.submitLabel ?? 'Subscribe')}</button>\n</form>`
  );
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
