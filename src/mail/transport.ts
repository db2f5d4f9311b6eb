// How a rendered message leaves: pooled SMTP (SMTP_URL, optional DKIM; smtpSender.ts, in a thread of its
// own: smtpThreadClient.ts) or, without SMTP_URL, the outbox table. A message with a `relayId` (an account's
// relay for its From domain, chosen with the sender identity) leaves through that relay's own pool in the
// same thread instead, whichever the default is; a relay that no longer exists sends through the default.
// Callers get a typed result: delivered (with message id), or failed as transient (4xx, connection) or
// permanent (5xx), which decides between retry and `failed`.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { OutgoingMessage, SendResult } from './outgoing.ts';
import type { SmtpPoolOptions } from './smtpPool.ts';
import { poolOptions, smtpSettings } from './smtpSender.ts';
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
  /** forgets an account relay (deleted): its pool is closed, its messages go the default way */
  dropRelay?(relayId: string): void;
  close(): Promise<void>;
}

/** An account relay's smtp(s):// URL, credentials included, or undefined when the account has no such relay. */
export type RelaySource = (accountId: string, relayId: string) => Promise<string | undefined>;

/** How long a relay's settings are trusted before they are read again (another instance may delete it). */
export const RELAY_RECHECK_MS = 30_000;

const hosts = new Map<string, string>();
export function newMessageId(config: Config): string {
  let host = hosts.get(config.publicUrl); // parsed once: a URL parse per message showed up in the send profile
  if (host === undefined) hosts.set(config.publicUrl, (host = new URL(config.publicUrl).hostname || 'localhost'));
  return `${randomUUID()}@${config.DKIM_DOMAIN ?? host}`;
}

/** `relays`: where account relays are read from; without it every message takes the default way. */
export function createTransport(config: Config, db: Db, relays?: RelaySource): MailTransport {
  const thread = config.SMTP_URL || relays ? new SmtpThreadClient(smtpSettings(config)) : undefined;
  const base = config.SMTP_URL ? smtpTransport(config, thread!) : outboxTransport(config, db);
  if (!relays) return base;
  return relayRouting(config, base, thread!, relays);
}

function smtpTransport(config: Config, thread: SmtpThreadClient): MailTransport {
  const transport: MailTransport = {
    kind: 'smtp',
    send: (msg) => thread.send({ ...msg, messageId: msg.messageId ?? newMessageId(config) }),
    warm: () => thread.warm(),
    close: () => thread.close(),
  };
  thread.onError = (err) => transport.onError?.(err);
  return transport;
}

/**
 * The default transport, with messages that name an account relay sent over that relay's pool. A relay's
 * URL is read (and opened) once per RELAY_RECHECK_MS, not per message; one read that fails sends the
 * message the default way rather than losing it.
 */
function relayRouting(
  config: Config,
  base: MailTransport,
  thread: SmtpThreadClient,
  relays: RelaySource,
): MailTransport {
  const known = new Map<string, { options: SmtpPoolOptions | undefined; url: string | undefined; at: number }>();
  // connections to an account's relay go to public addresses only, resolved through DNS_SERVERS
  const publicOnly = config.ALLOW_PRIVATE_SMTP_RELAYS ? undefined : { dnsServers: config.DNS_SERVERS };

  // by account and relay: a relay is only ever read for the account it belongs to
  const keyOf = (accountId: string, relayId: string) => `${accountId}/${relayId}`;
  async function relayOf(accountId: string, relayId: string): Promise<SmtpPoolOptions | undefined> {
    const key = keyOf(accountId, relayId);
    const hit = known.get(key);
    if (hit && Date.now() - hit.at < RELAY_RECHECK_MS) return hit.options;
    const url = await relays(accountId, relayId);
    if (hit?.url && hit.url !== url) thread.dropRelay(relayId); // deleted or changed: its connections go
    const options = url ? { ...poolOptions(config, url), publicOnly } : undefined;
    known.set(key, { options, url, at: Date.now() });
    return options;
  }

  const viaRelay = async (msg: OutgoingMessage): Promise<SendResult | undefined> => {
    if (!msg.relayId || !msg.accountId) return undefined;
    const options = await relayOf(msg.accountId, msg.relayId);
    if (!options) return undefined;
    return thread.send({ ...msg, messageId: msg.messageId ?? newMessageId(config) }, { id: msg.relayId, options });
  };

  const transport: MailTransport = {
    kind: base.kind,
    async send(msg) {
      return (await viaRelay(msg)) ?? base.send(msg);
    },
    ...(base.sendMany && {
      async sendMany(msgs) {
        // the default's batch for messages without a relay, one by one through their relay for the others
        const results: (SendResult | undefined)[] = await Promise.all(msgs.map(viaRelay));
        const rest = msgs.filter((_, i) => !results[i]);
        const sent = rest.length > 0 ? await base.sendMany!(rest) : [];
        let next = 0;
        return results.map((r) => r ?? sent[next++]!);
      },
    }),
    warm: () => base.warm?.(),
    dropRelay(relayId) {
      for (const key of known.keys()) if (key.endsWith(`/${relayId}`)) known.delete(key);
      thread.dropRelay(relayId);
    },
    async close() {
      await base.close(); // the SMTP transport closes the thread it shares
      if (base.kind === 'outbox') await thread.close();
    },
  };
  base.onError = (err) => transport.onError?.(err);
  thread.onError = (err) => transport.onError?.(err);
  return transport;
}

function outboxTransport(config: Config, db: Db): MailTransport {
  const row = (msg: OutgoingMessage, messageId: string) => ({
    account_id: msg.accountId,
    message_id: messageId,
    from_addr: msg.from,
    envelope_from: msg.envelopeFrom ?? null,
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
