// The double opt-in confirmation mail: a plain-text part and an HTML part that looks like the product
// (the dashboard's green, system fonts, one white card, a big button, the link spelled out under it),
// with inline styles and tables only, so mail clients without <style> support and phones render it.
import { z } from 'zod';
import { renderMessage } from '../../mail/render.ts';
import { ContentFields, sourceText, toHtml } from '../campaigns/content.ts';
import { compileChecked } from '../campaigns/templates.ts';
import type { Db } from '../../db/client.ts';
import { Validation } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { escapeHtml } from './markup.ts';
import * as repo from './queries.ts';

export interface ConfirmationMail {
  subject: string;
  text: string;
  html: string;
}

const BUTTON = '#166534';
const FONT = `-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif`;

export function confirmationMail(m: { firstName?: string; sender: string; link: string }): ConfirmationMail {
  const greeting = m.firstName ? `Hello ${m.firstName},` : 'Hello,';
  const intro = `Please confirm that you want to receive email from ${m.sender}`;
  const ignore = 'If you did not sign up, ignore this message: you will not be subscribed. The link expires in 7 days.';
  const text = `${greeting}\n\n${intro}:\n\n${m.link}\n\n${ignore}\n`;
  const link = escapeHtml(m.link);
  const p = `margin:0 0 16px;font:16px/1.5 ${FONT};color:#1f2933`;
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>Please confirm your subscription</title></head>` +
    `<body style="margin:0;padding:0;background:#f6f7f9">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f6f7f9">` +
    `<tr><td align="center" style="padding:24px 12px">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:520px;background:#ffffff;border:1px solid #dde2e8;border-radius:8px">` +
    `<tr><td style="padding:28px 24px">` +
    `<p style="margin:0 0 8px;font:600 12px/1.4 ${FONT};letter-spacing:.04em;text-transform:uppercase;color:#5f6b7a">${escapeHtml(m.sender)}</p>` +
    `<h1 style="margin:0 0 16px;font:700 22px/1.3 ${FONT};color:#1f2933">Confirm your subscription</h1>` +
    `<p style="${p}">${escapeHtml(greeting)}</p>` +
    `<p style="${p}">${escapeHtml(intro)}.</p>` +
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 20px"><tr>` +
    // the button's colour in CSS on the cell and the link too, not only in bgcolor: filters that read only
    // CSS took white text on "no background" for hidden text (SpamAssassin's HTML_FONT_LOW_CONTRAST)
    `<td bgcolor="${BUTTON}" style="border-radius:6px;background-color:${BUTTON}">` +
    `<a href="${link}" style="display:inline-block;padding:12px 22px;font:600 16px/1.2 ${FONT};color:#ffffff;background-color:${BUTTON};text-decoration:none;border-radius:6px">Confirm my subscription</a>` +
    `</td></tr></table>` +
    `<p style="margin:0 0 16px;font:14px/1.5 ${FONT};color:#5f6b7a">Or paste this link into your browser:<br>` +
    `<a href="${link}" style="color:#166534;word-break:break-all">${link}</a></p>` +
    `<p style="margin:0;font:14px/1.5 ${FONT};color:#5f6b7a">${escapeHtml(ignore)}</p>` +
    `</td></tr></table></td></tr></table></body></html>`;
  return { subject: 'Please confirm your subscription', text, html };
}

// --- the author's own confirmation mail

/** Where the confirmation link goes in an author's confirmation mail. */
export const CONFIRM_URL_TAG = '{{ confirm_url }}';
const CONFIRM_URL = /\{\{\s*confirm_url\s*\}\}/g;
const CONFIRMATION_FORMATS = ['html', 'blocks'] as const;

/** A form's confirmation mail as its create and update take it; content_source null restores the built-in mail. */
export const ConfirmationFields = {
  confirmation_subject: z.string().trim().min(1, 'confirmation_subject must not be empty').max(255).nullable(),
  content_format: z.enum(CONFIRMATION_FORMATS, { error: 'content_format must be one of: html, blocks' }),
  content_source: ContentFields.content_source,
};

export interface ConfirmationColumns {
  confirmation_subject?: string | null;
  confirmation_format?: 'html' | 'blocks';
  confirmation_source?: string | null;
  confirmation_html?: string | null;
}

/**
 * The columns a form's save writes for its confirmation mail: the source rendered (blocks → HTML) and
 * checked — it must carry {{ confirm_url }}, and its Liquid must compile — or nothing when not given.
 */
export async function confirmationColumns(
  input: { confirmation_subject?: string | null; content_format?: 'html' | 'blocks'; content_source?: unknown },
  before?: {
    confirmation_subject: string | null;
    confirmation_format: 'html' | 'blocks';
    confirmation_source: string | null;
  },
): Promise<ConfirmationColumns> {
  const out: ConfirmationColumns = {};
  if (input.confirmation_subject !== undefined) out.confirmation_subject = input.confirmation_subject;
  if (input.content_source === undefined && input.content_format === undefined) {
    if (out.confirmation_subject !== undefined) check(out.confirmation_subject, null);
    return out;
  }
  const format = input.content_format ?? before?.confirmation_format ?? 'html';
  const source =
    input.content_source !== undefined
      ? sourceText(input.content_source as Parameters<typeof sourceText>[0])
      : (before?.confirmation_source ?? null);
  if (source === null || !source.trim())
    return { ...out, confirmation_format: 'html', confirmation_source: null, confirmation_html: null };
  const html = (await toHtml(format, source)) ?? '';
  if (!/\{\{\s*confirm_url\s*\}\}/.test(html))
    throw Validation.field(
      'content_source',
      `The confirmation mail must contain the confirmation link ${CONFIRM_URL_TAG}`,
    );
  check(input.confirmation_subject ?? before?.confirmation_subject ?? null, html);
  return { ...out, confirmation_format: format, confirmation_source: source, confirmation_html: html };
}

function check(subject: string | null, html: string | null): void {
  try {
    compileChecked({ subject: subject ?? '', html: (html ?? '').replace(CONFIRM_URL, 'https://example.com/confirm') });
  } catch (err) {
    if (!(err instanceof Validation)) throw err;
    const { content_html, subject: subj, ...rest } = err.fields;
    throw Validation.of({
      ...(subj && { confirmation_subject: subj }),
      ...(content_html && { content_source: content_html }),
      ...rest,
    });
  }
}

/**
 * The mail a form sends to confirm one signup: the author's when the form has one, else the built-in
 * one — under the author's subject when only that was set. A signup through the API has no form (null):
 * the built-in mail.
 */
export function formConfirmationMail(
  form: { confirmation_subject: string | null; confirmation_html: string | null } | null,
  m: { email: string; firstName?: string; sender: string; link: string },
): ConfirmationMail {
  if (!form) return confirmationMail(m);
  if (form.confirmation_html)
    return customConfirmationMail(
      { confirmation_subject: form.confirmation_subject, confirmation_html: form.confirmation_html },
      m,
    );
  const mail = confirmationMail(m);
  if (!form.confirmation_subject) return mail;
  const { subject } = renderMessage(
    { subject: form.confirmation_subject, html: '<!-- unsubscribe_url -->' },
    { subscriber: sampleSubscriber(m), unsubscribeUrl: '#' },
  );
  return { ...mail, subject };
}

export const ConfirmationPreview = z.object({
  confirmation_subject: ConfirmationFields.confirmation_subject.optional(),
  content_format: ConfirmationFields.content_format.optional(),
  content_source: ConfirmationFields.content_source,
});

/**
 * The confirmation mail that settings not saved yet would send, for a sample signup (the editor's
 * preview): checked as a save checks it, so a mail without {{ confirm_url }} is the same 400.
 */
export async function previewConfirmation(
  db: Db,
  accountId: string,
  publicUrl: string,
  input: unknown,
): Promise<ConfirmationMail> {
  const p = parseInput(ConfirmationPreview, input);
  const columns = await confirmationColumns(p);
  const account = await repo.sender(db, accountId);
  return formConfirmationMail(
    { confirmation_subject: p.confirmation_subject ?? null, confirmation_html: columns.confirmation_html ?? null },
    {
      email: 'ada@example.com',
      firstName: 'Ada',
      sender: account.default_from_name ?? account.name,
      link: `${publicUrl}/f/confirm/sample-link`,
    },
  );
}

const sampleSubscriber = (m: { email: string; firstName?: string }) => ({
  id: '00000000-0000-4000-8000-000000000000',
  email: m.email,
  first_name: m.firstName ?? null,
});

/**
 * The author's confirmation mail for one signup: {{ confirm_url }} is the link, Liquid sees the signup as
 * `subscriber`. It has no unsubscribe footer — nobody is subscribed yet — and a footer block's
 * unsubscribe link goes nowhere.
 */
export function customConfirmationMail(
  form: { confirmation_subject: string | null; confirmation_html: string },
  m: { email: string; firstName?: string; link: string },
): ConfirmationMail {
  const html = form.confirmation_html.replace(CONFIRM_URL, escapeHtml(m.link));
  const rendered = renderMessage(
    {
      subject: form.confirmation_subject ?? 'Please confirm your subscription',
      // the comment names unsubscribe_url so the renderer adds no unsubscribe footer to a mail that subscribes no one
      html: `${html}<!-- no unsubscribe_url: not subscribed yet -->`,
    },
    { subscriber: sampleSubscriber(m), unsubscribeUrl: '#' },
  );
  return { subject: rendered.subject, html: rendered.html, text: rendered.text };
}
