// How a rendered message leaves: pooled SMTP (SMTP_URL, optional DKIM; smtpSender.ts, in a thread of its
// own: smtpThreadClient.ts) or, without SMTP_URL, the outbox table.
// Callers get a typed result: delivered (with message id), or failed as transient (4xx, connection) or
// permanent (5xx), which decides between retry and `failed`.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { OutgoingMessage, SendResult } from './outgoing.ts';
import { smtpSettings } from './smtpSender.ts';
import { SmtpThreadClient } from './smtpThreadClient.ts';

export type { OutgoingMessage, SendResult };

export interface MailTransport {
  readonly kind: 'smtp' | 'outbox';
  send(msg: OutgoingMessage): Promise<SendResult>;
  /** many messages in one go where the transport can (the outbox: one INSERT per batch, not per message) */
  sendMany?(msgs: OutgoingMessage[]): Promise<SendResult[]>;
  /** a process that sends campaigns gets ready at start (the SMTP thread), not with its first message */
  warm?(): void;
  /** told when the transport's machinery fails outside any one message (the SMTP thread stopped) */
  onError?: (err: Error) => void;
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
  const thread = new SmtpThreadClient(smtpSettings(config));
  const transport: MailTransport = {
    kind: 'smtp',
    send: (msg) => thread.send({ ...msg, messageId: msg.messageId ?? newMessageId(config) }),
    warm: () => thread.warm(),
    close: () => thread.close(),
  };
  thread.onError = (err) => transport.onError?.(err);
  return transport;
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
