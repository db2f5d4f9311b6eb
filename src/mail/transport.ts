// How a rendered message leaves: pooled SMTP (SMTP_URL, optional DKIM; smtpPool.ts, messages composed by
// mime.ts) or, without SMTP_URL, the outbox table.
// Callers get a typed result: delivered (with message id), or failed as transient (4xx, connection) or
// permanent (5xx), which decides between retry and `failed`.
import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { composeMessage, type MimeMessage } from './mime.ts';
import { SmtpPool } from './smtpPool.ts';

export interface OutgoingMessage extends Omit<MimeMessage, 'messageId' | 'date'> {
  accountId: string | null;
  /** without angle brackets; generated when absent */
  messageId?: string;
}

export type SendResult =
  { ok: true; messageId: string; response?: string } | { ok: false; permanent: boolean; code?: number; error: string };

export interface MailTransport {
  readonly kind: 'smtp' | 'outbox';
  send(msg: OutgoingMessage): Promise<SendResult>;
  /** many messages in one go where the transport can (the outbox: one INSERT per batch, not per message) */
  sendMany?(msgs: OutgoingMessage[]): Promise<SendResult[]>;
  close(): Promise<void>;
}

const hosts = new Map<string, string>();
export function newMessageId(config: Config): string {
  let host = hosts.get(config.publicUrl); // parsed once: a URL parse per message showed up in the send profile
  if (host === undefined) hosts.set(config.publicUrl, (host = new URL(config.publicUrl).hostname || 'localhost'));
  return `${randomUUID()}@${config.DKIM_DOMAIN ?? host}`;
}

export function createTransport(config: Config, db: Db): MailTransport {
  return config.SMTP_URL ? smtpTransport(config) : outboxTransport(config, db);
}

function smtpTransport(config: Config): MailTransport {
  const dkim =
    config.DKIM_DOMAIN && config.DKIM_SELECTOR && config.DKIM_PRIVATE_KEY
      ? {
          domainName: config.DKIM_DOMAIN,
          keySelector: config.DKIM_SELECTOR,
          privateKey: config.DKIM_PRIVATE_KEY.replace(/\\n/g, '\n'),
        }
      : undefined;
  const url = new URL(config.SMTP_URL!);
  // SEND_CONCURRENCY connections, each reused for every message (reconnecting per message halves throughput)
  const pool = new SmtpPool({
    maxConnections: Math.max(1, config.SEND_CONCURRENCY),
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { rejectUnauthorized: url.searchParams.get('tls_reject_unauthorized') !== 'false' },
    ignoreTLS: url.searchParams.get('starttls') === 'false',
    dkim,
  });
  return {
    kind: 'smtp',
    async send(msg) {
      const messageId = msg.messageId ?? newMessageId(config);
      try {
        // composed in one pass (mime.ts); what it leaves alone (unusual addresses) nodemailer composes
        const composed = composeMessage({ ...msg, messageId }) ?? (await composeWithNodemailer(msg, messageId));
        const response = await pool.send(composed.envelope, composed.raw);
        return { ok: true, messageId, response };
      } catch (err: any) {
        const code: number | undefined = err.responseCode;
        // 5xx is the server's final no; anything else (4xx, refused, timeout) may work later
        return {
          ok: false,
          permanent: code !== undefined && code >= 500,
          code,
          error: String(err.response ?? err.message),
        };
      }
    },
    async close() {
      pool.close();
    },
  };
}

/** nodemailer's own composition, for the messages mime.ts does not take (IDN / SMTPUTF8 addresses, …). */
async function composeWithNodemailer(
  msg: OutgoingMessage,
  messageId: string,
): Promise<{ raw: Buffer; envelope: { from: string; to: string[] } }> {
  const node = new MailComposer({
    from: msg.from,
    to: msg.to,
    subject: msg.subject,
    html: msg.html,
    text: msg.text,
    replyTo: msg.replyTo,
    headers: msg.headers,
    messageId: `<${messageId}>`,
  }).compile();
  const envelope = node.getEnvelope();
  return { raw: await node.build(), envelope: { from: envelope.from || '', to: envelope.to } };
}

function outboxTransport(config: Config, db: Db): MailTransport {
  const row = (msg: OutgoingMessage, messageId: string) => ({
    account_id: msg.accountId,
    message_id: messageId,
    from_addr: msg.from,
    to_addr: msg.to,
    subject: msg.subject,
    html: msg.html ?? null,
    text: msg.text ?? null,
    headers: JSON.stringify({ ...(msg.replyTo && { 'Reply-To': msg.replyTo }), ...msg.headers }),
  });
  return {
    kind: 'outbox',
    async send(msg) {
      const messageId = msg.messageId ?? newMessageId(config);
      await db.insertInto('outbox').values(row(msg, messageId)).execute();
      return { ok: true, messageId };
    },
    async sendMany(msgs) {
      if (msgs.length === 0) return [];
      const ids = msgs.map((m) => m.messageId ?? newMessageId(config));
      await db
        .insertInto('outbox')
        .values(msgs.map((m, i) => row(m, ids[i]!)))
        .execute();
      return ids.map((messageId) => ({ ok: true as const, messageId }));
    },
    async close() {},
  };
}

/** "Name <email>" from a display name and an address, quoting the name when it needs it. */
export function formatAddress(name: string | null | undefined, email: string): string {
  if (!name) return email;
  return /[",.<>@;:()[\]\\]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}" <${email}>` : `${name} <${email}>`;
}
