// Bounce and complaint reports as each provider posts them, normalised to
// {email, kind: hard|soft|complaint, message_id?}: Amazon SES through SNS (including the
// SubscriptionConfirmation handshake), the SendGrid event webhook, Postmark's bounce and spam-complaint
// webhooks, and a generic JSON shape. Pure functions: no database, no network (an SNS SubscribeURL is
// returned for the operator to visit, never fetched).
import { z } from 'zod';
import { Validation } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { classify, parseReply, type ReplyClass } from '../../mail/smtpReply.ts';

export const PROVIDERS = ['ses', 'sendgrid', 'postmark', 'generic'] as const;
export type Provider = (typeof PROVIDERS)[number];
export type BounceKind = 'hard' | 'soft' | 'complaint';

export interface BounceReport {
  email: string;
  kind: BounceKind;
  /** the Message-ID we sent, without angle brackets, when the provider echoes it */
  message_id?: string;
  detail?: string;
  /** the enhanced status code the provider quoted (its own field or its diagnostic), when there was one */
  smtp_status?: string;
  /** what the quoted reply is by the one classifier (smtpReply.ts), when the report quoted one */
  reply_class?: ReplyClass;
}

export interface Parsed {
  reports: BounceReport[];
  /** SNS asked to confirm a subscription: the operator visits this URL (we never fetch it) */
  confirmation?: { subscribe_url: string; topic_arn?: string };
}

export function parse(provider: Provider, body: unknown): Parsed {
  const data = typeof body === 'string' ? parseJson(body) : body;
  switch (provider) {
    case 'ses':
      return parseSns(data);
    case 'sendgrid':
      return { reports: parseSendgrid(data) };
    case 'postmark':
      return { reports: (Array.isArray(data) ? data : [data]).flatMap(parsePostmark) };
    case 'generic':
      return { reports: parseGeneric(data) };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw Validation.field('_', 'Body is not valid JSON');
  }
}

const obj = (v: unknown): Record<string, any> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : {};
const bare = (id: unknown): string | undefined =>
  typeof id === 'string' && id.trim() ? id.trim().replace(/^<|>$/g, '') : undefined;

/**
 * The provider's verdict, unless the SMTP reply it quotes says otherwise: the one rule the send workers
 * apply too. A quoted 5.1.1 is hard even in a report the provider calls transient; a 4.x.x or a policy
 * refusal (5.7.x) is soft even in one it calls permanent; any other 5xx leaves the provider's word.
 */
export function judged(
  kind: 'hard' | 'soft',
  status: unknown,
  diagnostic: unknown,
): Pick<BounceReport, 'kind' | 'smtp_status' | 'reply_class'> {
  const text = typeof diagnostic === 'string' ? diagnostic.replace(/^\s*smtp;\s*/i, '') : '';
  const quoted = parseReply(null, text);
  const given = typeof status === 'string' && /^[245]\.\d{1,3}\.\d{1,3}$/.test(status.trim()) ? status.trim() : null;
  const reply = { code: quoted.code, status: given ?? quoted.status };
  if (reply.code === null && reply.status === null) return { kind };
  const reply_class = classify(reply);
  const verdict = reply_class === 'hard' ? 'hard' : reply_class === 'failed' ? kind : 'soft';
  return { kind: verdict, reply_class, ...(reply.status && { smtp_status: reply.status }) };
}

// SNS wraps the SES notification as a JSON string in Message; SES event publishing names the type eventType
function parseSns(data: unknown): Parsed {
  const envelope = obj(data);
  if (envelope.Type === 'SubscriptionConfirmation') {
    if (typeof envelope.SubscribeURL !== 'string') throw Validation.field('SubscribeURL', 'SubscribeURL is missing');
    return { reports: [], confirmation: { subscribe_url: envelope.SubscribeURL, topic_arn: envelope.TopicArn } };
  }
  if (envelope.Type === 'UnsubscribeConfirmation') return { reports: [] };
  const note =
    envelope.Type === 'Notification'
      ? obj(typeof envelope.Message === 'string' ? parseJson(envelope.Message) : envelope.Message)
      : envelope;
  const type = note.notificationType ?? note.eventType;
  const mail = obj(note.mail);
  const message_id =
    bare(obj(mail.commonHeaders).messageId) ??
    bare((mail.headers ?? []).find?.((h: any) => /^message-id$/i.test(h?.name))?.value);
  if (type === 'Bounce') {
    const bounce = obj(note.bounce);
    const kind = bounce.bounceType === 'Permanent' ? 'hard' : 'soft';
    return {
      reports: (bounce.bouncedRecipients ?? []).map((r: any) => ({
        email: String(r.emailAddress ?? ''),
        ...judged(kind, r?.status, r?.diagnosticCode),
        message_id,
        detail: r.diagnosticCode ?? bounce.bounceSubType,
      })),
    };
  }
  if (type === 'Complaint') {
    const complaint = obj(note.complaint);
    return {
      reports: (complaint.complainedRecipients ?? []).map((r: any) => ({
        email: String(r.emailAddress ?? ''),
        kind: 'complaint' as const,
        message_id,
        detail: complaint.complaintFeedbackType,
      })),
    };
  }
  if (type === undefined) throw Validation.field('Type', 'Not an Amazon SNS/SES notification');
  return { reports: [] }; // Delivery, Send, Open…: nothing to do
}

// SendGrid posts an array of events; "bounce" with type "blocked" is a temporary refusal
function parseSendgrid(data: unknown): BounceReport[] {
  if (!Array.isArray(data)) throw Validation.field('_', 'SendGrid posts an array of events');
  return data.flatMap((e): BounceReport[] => {
    const ev = obj(e);
    const base = { email: String(ev.email ?? ''), message_id: bare(ev['smtp-id']), detail: ev.reason ?? ev.response };
    const quoted = ev.reason ?? ev.response;
    if (ev.event === 'bounce')
      return [{ ...base, ...judged(ev.type === 'blocked' ? 'soft' : 'hard', ev.status, quoted) }];
    if (ev.event === 'deferred') return [{ ...base, ...judged('soft', ev.status, quoted) }];
    if (ev.event === 'spamreport') return [{ ...base, kind: 'complaint' }];
    return [];
  });
}

const POSTMARK_HARD = new Set(['HardBounce', 'BadEmailAddress']);
const POSTMARK_COMPLAINT = new Set(['SpamComplaint', 'SpamNotification']);
// Postmark bounce types that are no delivery problem at all
const POSTMARK_IGNORED = new Set([
  'Subscribe',
  'Unsubscribe',
  'AutoResponder',
  'OpenRelayTest',
  'ChallengeVerification',
  'AddressChange',
]);

function parsePostmark(data: unknown): BounceReport[] {
  const b = obj(data);
  if (b.RecordType !== undefined && b.RecordType !== 'Bounce' && b.RecordType !== 'SpamComplaint') return [];
  if (typeof b.Email !== 'string' || typeof b.Type !== 'string')
    throw Validation.field('Email', 'A Postmark bounce needs Email and Type');
  if (POSTMARK_IGNORED.has(b.Type)) return [];
  const detail = b.Details ?? b.Description;
  if (b.RecordType === 'SpamComplaint' || POSTMARK_COMPLAINT.has(b.Type))
    return [{ email: b.Email, kind: 'complaint', detail }];
  return [{ email: b.Email, ...judged(POSTMARK_HARD.has(b.Type) ? 'hard' : 'soft', undefined, b.Details), detail }];
}

const GenericReport = z.object({
  email: z.string().trim().min(3, 'email is required').max(254),
  type: z.enum(['hard', 'soft', 'complaint'], { error: 'type must be one of: hard, soft, complaint' }),
  message_id: z.string().max(998).optional(),
  detail: z.string().max(2000).optional(),
  /** the enhanced status code ("5.1.1"), judged by the same rule as a reply at send time */
  status: z.string().max(100).optional(),
});

function parseGeneric(data: unknown): BounceReport[] {
  const items = parseInput(z.array(GenericReport).max(10_000), Array.isArray(data) ? data : [data]);
  return items.map((r) => ({
    email: r.email,
    ...(r.type === 'complaint' ? { kind: r.type } : judged(r.type, r.status, r.detail)),
    message_id: bare(r.message_id),
    detail: r.detail,
  }));
}
