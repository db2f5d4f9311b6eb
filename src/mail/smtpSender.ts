// The SMTP half of the mail transport: compose (mime.ts, or nodemailer for what it leaves alone) and hand
// to the pool (smtpPool.ts), the reply mapped to a SendResult. It runs in the SMTP thread (smtpThread.ts),
// so it takes plain settings rather than the process's Config.
import { isIP } from 'node:net';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Config } from '../config.ts';
import { dkimSign, type DkimKey } from './dkim.ts';
import { composeMessage } from './mime.ts';
import { SmtpPool, type SmtpPoolOptions } from './smtpPool.ts';
import type { OutgoingMessage, SendResult } from './outgoing.ts';

/** What the SMTP thread starts with. */
export interface SmtpSettings {
  /** the instance's pool (SMTP_URL); absent in outbox mode, where only accounts' relays use the thread */
  instance?: SmtpPoolOptions;
  /** the instance key (DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY): signs what no account key signs */
  dkim?: DkimKey;
}

/** A message as the SMTP thread takes it: its Message-ID already chosen (on the sender's side). */
export type AddressedMessage = OutgoingMessage & { messageId: string };

/**
 * The name this instance gives in EHLO: SMTP_EHLO_NAME, else PUBLIC_URL's host (an address as a literal,
 * "[192.0.2.1]"). Receivers compare it with the connecting address's reverse DNS.
 */
export function ehloName(config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>): string {
  if (config.SMTP_EHLO_NAME) return config.SMTP_EHLO_NAME;
  const host = new URL(config.publicUrl).hostname || 'localhost';
  return isIP(host.replace(/^\[|\]$/g, '')) ? `[${host.replace(/^\[|\]$/g, '')}]` : host;
}

export function smtpSettings(config: Config): SmtpSettings {
  const dkim =
    config.DKIM_DOMAIN && config.DKIM_SELECTOR && config.DKIM_PRIVATE_KEY
      ? {
          domainName: config.DKIM_DOMAIN,
          keySelector: config.DKIM_SELECTOR,
          privateKey: config.DKIM_PRIVATE_KEY.replace(/\\n/g, '\n'),
        }
      : undefined;
  return { instance: config.SMTP_URL ? poolOptions(config, config.SMTP_URL) : undefined, dkim };
}

/**
 * A pool's settings from an smtp:// or smtps:// URL (SMTP_URL, or an account relay's): host, port (587, or
 * 465 for smtps), credentials, ?starttls=false and ?tls_reject_unauthorized=false.
 */
export function poolOptions(
  config: Pick<Config, 'SEND_CONCURRENCY' | 'SMTP_EHLO_NAME' | 'publicUrl'>,
  raw: string,
): SmtpPoolOptions {
  const url = new URL(raw);
  return {
    // SEND_CONCURRENCY connections, each reused for every message (reconnecting per message halves throughput)
    maxConnections: Math.max(1, config.SEND_CONCURRENCY),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { rejectUnauthorized: url.searchParams.get('tls_reject_unauthorized') !== 'false' },
    ignoreTLS: url.searchParams.get('starttls') === 'false',
    name: ehloName(config),
  };
}

export interface SmtpSender {
  send(msg: AddressedMessage): Promise<SendResult>;
  close(): void;
}

/** One pool's sender: the instance's (SMTP_URL) or one account relay's, each signing with the instance key as fallback. */
export function smtpSender(options: SmtpPoolOptions, instanceKey?: DkimKey): SmtpSender {
  const pool = new SmtpPool(options);
  return {
    async send(msg) {
      const { messageId } = msg;
      try {
        // composed in one pass (mime.ts); what it leaves alone (unusual addresses) nodemailer composes
        const composed = composeMessage(msg) ?? (await composeWithNodemailer(msg, messageId));
        // the account's verified domain key, else the instance key, else unsigned
        const key = msg.dkim ?? instanceKey;
        const raw = key ? dkimSign(composed.raw, key) : composed.raw;
        const response = await pool.send(composed.envelope, raw);
        return { ok: true, messageId, response };
      } catch (err: any) {
        const code: number | undefined = err?.responseCode;
        // 5xx is the server's final no; anything else (4xx, refused, timeout) may work later
        return {
          ok: false,
          permanent: code !== undefined && code >= 500,
          code,
          error: String(err?.response ?? err?.message ?? err),
        };
      }
    },
    close: () => pool.close(),
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
  return { raw: await node.build(), envelope: { from: msg.envelopeFrom ?? (envelope.from || ''), to: envelope.to } };
}
