// The instance's own mail to people who sign in to the dashboard: an invitation to an account and a
// password reset link. Both come from MAIL_FROM (the instance's sender, not an account's: a reset is for a
// person, who may belong to several accounts) through the process's transport, which in the default
// setup is the outbox. Plain text and a simple HTML part; every given value is escaped.
import type { Config } from '../../config.ts';
import { escapeHtml } from '../../mail/render.ts';
import { newMessageId, type MailTransport, type SendResult } from '../../mail/transport.ts';

export interface TeamMail {
  transport: MailTransport;
  config: Config;
}

const FONT = `-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif`;

function page(title: string, paragraphs: string[], button: string, link: string, after: string): string {
  const p = `margin:0 0 16px;font:16px/1.5 ${FONT};color:#1f2933`;
  const href = escapeHtml(link);
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body style="margin:0;padding:24px 12px;background:#f6f7f9">` +
    `<div style="max-width:520px;margin:0 auto;background:#fff;border:1px solid #dde2e8;border-radius:8px;padding:28px 24px">` +
    `<h1 style="margin:0 0 16px;font:700 22px/1.3 ${FONT};color:#1f2933">${escapeHtml(title)}</h1>` +
    paragraphs.map((t) => `<p style="${p}">${escapeHtml(t)}</p>`).join('') +
    `<p style="margin:8px 0 20px"><a href="${href}" style="display:inline-block;padding:12px 22px;font:600 16px/1.2 ${FONT};color:#fff;background-color:#166534;text-decoration:none;border-radius:6px">${escapeHtml(button)}</a></p>` +
    `<p style="margin:0 0 16px;font:14px/1.5 ${FONT};color:#5f6b7a">Or paste this link into your browser:<br>` +
    `<a href="${href}" style="color:#166534;word-break:break-all">${href}</a></p>` +
    `<p style="margin:0;font:14px/1.5 ${FONT};color:#5f6b7a">${escapeHtml(after)}</p>` +
    `</div></body></html>`
  );
}

function send(mail: TeamMail, m: { to: string; subject: string; text: string; html: string }): Promise<SendResult> {
  return mail.transport.send({
    // filed under no account: every member, viewers included, reads the account's outbox, and the link in
    // someone's invitation (an admin's, say) or reset mail must not be theirs to follow
    accountId: null,
    from: mail.config.MAIL_FROM,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    messageId: newMessageId(mail.config),
  });
}

/** The link's token travels in the fragment: browsers do not send it, so no access log ever holds it. */
export function teamLink(
  config: Pick<Config, 'publicUrl'>,
  path: 'invitation' | 'reset-password',
  token: string,
): string {
  return `${config.publicUrl}/app/${path}#token=${token}`;
}

export function sendInvitation(
  mail: TeamMail,
  i: {
    accountName: string;
    email: string;
    role: string;
    inviter: string;
    token: string;
    days: number;
  },
): Promise<SendResult> {
  const link = teamLink(mail.config, 'invitation', i.token);
  const title = `Join ${i.accountName} on Mailgrove`;
  const lines = [
    `${i.inviter} invited you to the Mailgrove account “${i.accountName}” as ${i.role}.`,
    'Open the link to set your password and sign in.',
  ];
  const after = `The link works once and expires in ${i.days} days. If you did not expect this, ignore this message.`;
  return send(mail, {
    to: i.email,
    subject: title,
    text: `${lines.join('\n\n')}\n\n${link}\n\n${after}\n`,
    html: page(title, lines, 'Accept the invitation', link, after),
  });
}

export function sendPasswordReset(mail: TeamMail, r: { email: string; token: string }): Promise<SendResult> {
  const link = teamLink(mail.config, 'reset-password', r.token);
  const title = 'Reset your Mailgrove password';
  const lines = ['Someone (hopefully you) asked to reset the password of this address on Mailgrove.'];
  const after =
    'The link works once and expires in one hour. If you did not ask for it, ignore this message: your password stays as it is.';
  return send(mail, {
    to: r.email,
    subject: title,
    text: `${lines.join('\n\n')}\n\n${link}\n\n${after}\n`,
    html: page(title, lines, 'Choose a new password', link, after),
  });
}
