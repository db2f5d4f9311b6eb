// What a message that came home to a return path or an unsubscribe address is, read with mailparser:
// a delivery status notification (RFC 3464 `multipart/report; report-type=delivery-status`, or one of the
// common non-standard bounce formats that only say it in words), a complaint (ARF, RFC 5965
// `report-type=feedback-report`), an automatic reply (RFC 3834 `Auto-Submitted`, out-of-office notes), or
// a plain message. Then what a report means for the email it is about (`verdictOf`): the same judgement
// of the quoted status as the providers' webhooks get (bounceFormats.ts `judged`). Pure: no database.
import { simpleParser, type ParsedMail, type SimpleParserOptions } from 'mailparser';
import type { ReplyClass } from '../../mail/smtpReply.ts';
import { judged } from './bounceFormats.ts';

/** One per-recipient block of a delivery-status part (RFC 3464 §2.3). */
export interface RecipientStatus {
  /** failed, delayed, delivered, relayed or expanded (lower case) */
  action: string;
  /** the RFC 3463 status code ("5.1.1"), when the block has a well-formed one */
  status: string | null;
  /** Diagnostic-Code without its type ("550 5.1.1 <a@b>: no such user") */
  diagnostic: string | null;
  finalRecipient: string | null;
  originalRecipient: string | null;
}

/** What the report quotes of the message it is about (message/rfc822 or text/rfc822-headers). */
export interface QuotedMessage {
  messageId: string | null;
  /** the envelope sender the receiving server wrote (Return-Path): our VERP address when it was ours */
  returnPath: string | null;
  /** the mailto target of its List-Unsubscribe: our VERP unsubscribe address when it was ours */
  unsubscribeMailto: string | null;
  /** the quoted message is a report itself: a bounce of a bounce */
  isReport: boolean;
}

export type MailReport =
  | { type: 'dsn'; standard: boolean; recipients: RecipientStatus[]; original: QuotedMessage | null }
  | { type: 'complaint'; feedbackType: string; original: QuotedMessage | null }
  | { type: 'auto_reply'; why: string }
  | { type: 'message' }
  | { type: 'malformed'; why: string };

export interface ReadReport {
  report: MailReport;
  subject: string | null;
  from: string | null;
}

const STATUS = /^[245]\.\d{1,3}\.\d{1,3}$/;
const FIELD = /^([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*)$/;
const OOO_SUBJECT =
  /^(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|absence|vacation|autoreply|r[ée]ponse automatique)\b|^auto:/i;
const BOUNCE_SUBJECT =
  /(undeliver|undelivered mail|delivery (status notification|failure|has failed)|mail delivery (failed|failure|subsystem)|returned mail|failure notice|delivery notification|non[- ]?delivery|could not be delivered|nicht zustellbar)/i;
const BOUNCE_SENDER = /^(mailer-daemon|postmaster|mail-daemon|mail\.daemon)@/i;

export async function readMailReport(raw: Buffer): Promise<ReadReport> {
  let mail: ParsedMail;
  try {
    // keepDeliveryStatus: the message/delivery-status part as an attachment, not merged into the text
    const options = { keepDeliveryStatus: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true };
    mail = await simpleParser(raw, options as SimpleParserOptions);
  } catch (err) {
    return { report: { type: 'malformed', why: `not a parseable message: ${String(err)}` }, subject: null, from: null };
  }
  const subject = typeof mail.subject === 'string' ? mail.subject : null;
  const from = mail.from?.value?.[0]?.address ?? null;
  const report = classifyParsed(mail, subject, from);
  // mailparser reads an inline message/rfc822 part into the message rather than keeping it as a part
  if ((report.type === 'complaint' || report.type === 'dsn') && !report.original) report.original = rawQuoted(raw);
  return { report, subject, from };
}

/** The quoted message of a report found in its raw text: the part after a message/rfc822 part's header. */
function rawQuoted(raw: Buffer): QuotedMessage | null {
  const text = raw.subarray(0, 1024 * 1024).toString('latin1');
  const m = /^content-type:[ \t]*(?:message\/rfc822|text\/rfc822-headers|message\/rfc822-headers)\b/im.exec(text);
  if (!m) return null;
  const body = /\r?\n\r?\n/.exec(text.slice(m.index));
  if (!body) return null;
  return quotedMessage(Buffer.from(text.slice(m.index + body.index + body[0].length), 'latin1'));
}

function classifyParsed(mail: ParsedMail, subject: string | null, from: string | null): MailReport {
  const contentType = mail.headers.get('content-type') as
    { value?: string; params?: Record<string, string> } | undefined;
  const type = contentType?.value?.toLowerCase();
  const reportType = contentType?.params?.['report-type']?.toLowerCase();
  const parts = mail.attachments ?? [];
  const partOf = (...types: string[]) => parts.find((a) => types.includes(a.contentType?.toLowerCase()));
  const quoted = () => {
    const q = partOf('message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers');
    return q ? quotedMessage(q.content) : null;
  };
  if (type === 'multipart/report' && reportType === 'delivery-status') {
    const status = partOf('message/delivery-status', 'message/global-delivery-status');
    if (!status) return { type: 'malformed', why: 'a delivery report without its message/delivery-status part' };
    const recipients = deliveryStatus(status.content.toString('latin1'));
    if (recipients.length === 0)
      return { type: 'malformed', why: 'a delivery report without per-recipient fields (Action, Status)' };
    return { type: 'dsn', standard: true, recipients, original: quoted() };
  }
  if (type === 'multipart/report' && reportType === 'feedback-report') {
    const fb = partOf('message/feedback-report');
    if (!fb) return { type: 'malformed', why: 'a feedback report without its message/feedback-report part' };
    const fields = fieldBlocks(fb.content.toString('latin1'))[0] ?? new Map<string, string>();
    const feedbackType = fields.get('feedback-type')?.toLowerCase().trim();
    if (!feedbackType) return { type: 'malformed', why: 'a feedback report without Feedback-Type' };
    return { type: 'complaint', feedbackType, original: quoted() };
  }
  const autoSubmitted = headerText(mail, 'auto-submitted')?.toLowerCase();
  if (autoSubmitted && !autoSubmitted.startsWith('no')) {
    // a bounce in words may say Auto-Submitted too (Postfix does): it is looked at as a bounce first
    const bounce = wordsBounce(mail, subject, from);
    return bounce ?? { type: 'auto_reply', why: `Auto-Submitted: ${autoSubmitted.slice(0, 60)}` };
  }
  for (const h of ['x-autoreply', 'x-autorespond'])
    if (headerText(mail, h)) return { type: 'auto_reply', why: `${h} header` };
  const precedence = headerText(mail, 'precedence')?.toLowerCase();
  if (precedence === 'auto_reply') return { type: 'auto_reply', why: 'Precedence: auto_reply' };
  const bounce = wordsBounce(mail, subject, from);
  if (bounce) return bounce;
  if (subject && OOO_SUBJECT.test(subject.trim())) return { type: 'auto_reply', why: 'an out-of-office subject' };
  return { type: 'message' };
}

/**
 * A bounce that only says so in words (no multipart/report): from MAILER-DAEMON or postmaster, or with a
 * bounce subject. The first RFC 3463 status code in the text before the quoted original is its status.
 */
function wordsBounce(mail: ParsedMail, subject: string | null, from: string | null): MailReport | undefined {
  if (!(from && BOUNCE_SENDER.test(from)) && !(subject && BOUNCE_SUBJECT.test(subject))) return undefined;
  const text = (mail.text ?? '').slice(0, 16_384);
  const own = text.split(
    /^[ \t]*-{2,}.*(original message|copy of the message|below this line|message headers follow|returned message).*$/im,
  )[0]!;
  // a failure's code is of class 4 or 5, standing alone (not the tail of an IP address such as 192.0.2.1)
  const code = /(?:^|[\s(])([45]\.\d{1,3}\.\d{1,3})(?=[\s).,;:]|$)/;
  const line = own.split(/\r?\n/).find((l) => code.test(l));
  const status = line && code.exec(line)![1]!;
  const rcpt = /<?([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>?/.exec(own)?.[1] ?? null;
  const attached = mail.attachments?.find((a) => /rfc822/i.test(a.contentType ?? ''));
  return {
    type: 'dsn',
    standard: false,
    recipients: status
      ? [
          {
            action: status.startsWith('4') ? 'delayed' : 'failed',
            status,
            diagnostic: line!.trim().slice(0, 1000),
            finalRecipient: rcpt,
            originalRecipient: null,
          },
        ]
      : [],
    original: attached ? quotedMessage(attached.content) : null,
  };
}

function headerText(mail: ParsedMail, name: string): string | undefined {
  const v = mail.headers.get(name);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'value' in (v as object)) return String((v as { value: unknown }).value);
  return String(v);
}

/** RFC 822-style field blocks (unfolded, names lower-cased), separated by blank lines. */
export function fieldBlocks(text: string): Map<string, string>[] {
  const unfolded = text
    .slice(0, 65_536)
    .replace(/\r\n/g, '\n')
    .replace(/\n[ \t]+/g, ' ');
  return unfolded
    .split(/\n[ \t]*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const m = FIELD.exec(line);
        if (m && !fields.has(m[1]!.toLowerCase())) fields.set(m[1]!.toLowerCase(), m[2]!.trim());
      }
      return fields;
    })
    .filter((f) => f.size > 0);
}

/** The per-recipient blocks of a message/delivery-status part: those with an Action or a Final-Recipient. */
export function deliveryStatus(text: string): RecipientStatus[] {
  const typed = (v: string | undefined) => (v === undefined ? null : v.replace(/^[^;]*;\s*/, '').trim() || null);
  return fieldBlocks(text)
    .filter((f) => f.has('action') || f.has('final-recipient'))
    .slice(0, 100)
    .map((f) => {
      const status = (f.get('status') ?? '').split(/[\s(]/)[0]!;
      return {
        action: (f.get('action') ?? '').toLowerCase().split(/[\s(]/)[0]!,
        status: STATUS.test(status) ? status : null,
        diagnostic: typed(f.get('diagnostic-code'))?.slice(0, 1000) ?? null,
        finalRecipient: typed(f.get('final-recipient'))?.replace(/^<|>$/g, '') ?? null,
        originalRecipient: typed(f.get('original-recipient'))?.replace(/^<|>$/g, '') ?? null,
      };
    });
}

/** What names the email a quoted message was: its Message-ID, Return-Path, List-Unsubscribe mailto. */
export function quotedMessage(content: Buffer): QuotedMessage {
  const text = content.subarray(0, 65_536).toString('latin1');
  const head = text.split(/\r?\n\r?\n/)[0] ?? '';
  const fields = fieldBlocks(head)[0] ?? new Map<string, string>();
  const id = /<([^<>\s]+)>/.exec(fields.get('message-id') ?? '')?.[1] ?? null;
  const type = (fields.get('content-type') ?? '').toLowerCase();
  const returnPath = /<([^<>\s]+@[^<>\s]+)>/.exec(fields.get('return-path') ?? '')?.[1] ?? null;
  const mailto = /<mailto:([^<>?\s]+@[^<>?\s]+)[?>]/i.exec(fields.get('list-unsubscribe') ?? '')?.[1] ?? null;
  return {
    messageId: id,
    returnPath,
    unsubscribeMailto: mailto && decodeURIComponentSafe(mailto),
    isReport: type.startsWith('multipart/report'),
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export type Effect = 'bounced' | 'soft_bounced' | 'blocked' | 'delayed' | 'complained';

export type Verdict =
  | { effect: Effect; status: string | null; detail: string | null; replyClass?: ReplyClass }
  | { effect: 'auto_reply' | 'ignored'; reason: string };

/**
 * What a report that came to one email's return path means for that email (sent to `sent.email` under
 * `sent.messageId`). Anything that does not add up is ignored with its reason: a report about another
 * message than the one this return path was given to, a bounce of a bounce, a report with no failed
 * recipient or no status code.
 */
export function verdictOf(report: MailReport, sent: { email: string; messageId: string | null }): Verdict {
  if (report.type === 'malformed') return { effect: 'ignored', reason: report.why };
  if (report.type === 'auto_reply') return { effect: 'auto_reply', reason: report.why };
  if (report.type === 'message') return { effect: 'ignored', reason: 'not a delivery or feedback report' };
  const original = report.original;
  if (original?.isReport) return { effect: 'ignored', reason: 'a report about a report (a bounce of a bounce)' };
  if (original?.messageId && sent.messageId && original.messageId.toLowerCase() !== sent.messageId.toLowerCase())
    return {
      effect: 'ignored',
      reason: 'the report quotes another Message-ID than the email this return path was given to',
    };
  if (report.type === 'complaint') {
    if (report.feedbackType === 'not-spam' || report.feedbackType === 'auth-failure')
      return { effect: 'ignored', reason: `Feedback-Type ${report.feedbackType} is no complaint` };
    return { effect: 'complained', status: null, detail: `Feedback-Type: ${report.feedbackType}` };
  }
  const considered = report.recipients.filter((r) => r.action === 'failed' || r.action === 'delayed');
  if (considered.length === 0)
    return {
      effect: 'ignored',
      reason: report.recipients.length
        ? `no failed recipient (Action: ${report.recipients.map((r) => r.action || 'none').join(', ')})`
        : 'a bounce without a status code',
    };
  const addressed = (r: RecipientStatus) =>
    [r.finalRecipient, r.originalRecipient].some((a) => a?.toLowerCase() === sent.email.toLowerCase());
  // a report about several recipients (a relay's digest): ours, or the only one
  const r = considered.find(addressed) ?? (considered.length === 1 ? considered[0]! : undefined);
  if (!r) return { effect: 'ignored', reason: 'the report names several recipients, none of them this one' };
  const detail = r.diagnostic;
  if (!r.status && !detail)
    return { effect: 'ignored', reason: 'a failed recipient without Status or Diagnostic-Code' };
  const j = judged(r.action === 'failed' ? 'hard' : 'soft', r.status ?? undefined, detail ?? undefined);
  const status = j.smtp_status ?? r.status;
  if (!status && j.reply_class === undefined) return { effect: 'ignored', reason: 'no status code in the report' };
  if (r.action === 'delayed') return { effect: 'delayed', status, detail, replyClass: j.reply_class };
  if (j.kind === 'hard') return { effect: 'bounced', status, detail, replyClass: j.reply_class };
  if (j.reply_class === 'blocked') return { effect: 'blocked', status, detail, replyClass: j.reply_class };
  return { effect: 'soft_bounced', status, detail, replyClass: j.reply_class };
}
