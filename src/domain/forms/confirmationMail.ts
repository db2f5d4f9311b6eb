// The double opt-in confirmation mail: a plain-text part and an HTML part that looks like the product
// (the dashboard's green, system fonts, one white card, a big button, the link spelled out under it),
// with inline styles and tables only, so mail clients without <style> support and phones render it.
import { escapeHtml } from './markup.ts';

export interface ConfirmationMail {
  subject: string;
  text: string;
  html: string;
}

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
    `<td bgcolor="#166534" style="border-radius:6px">` +
    `<a href="${link}" style="display:inline-block;padding:12px 22px;font:600 16px/1.2 ${FONT};color:#ffffff;text-decoration:none;border-radius:6px">Confirm my subscription</a>` +
    `</td></tr></table>` +
    `<p style="margin:0 0 16px;font:14px/1.5 ${FONT};color:#5f6b7a">Or paste this link into your browser:<br>` +
    `<a href="${link}" style="color:#166534;word-break:break-all">${link}</a></p>` +
    `<p style="margin:0;font:14px/1.5 ${FONT};color:#5f6b7a">${escapeHtml(ignore)}</p>` +
    `</td></tr></table></td></tr></table></body></html>`;
  return { subject: 'Please confirm your subscription', text, html };
}
