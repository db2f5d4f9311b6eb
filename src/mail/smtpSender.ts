// The SMTP half of the mail transport: compose (mime.ts, or nodemailer for what it leaves alone) and hand
// to the pool (smtpPool.ts), the reply mapped to a SendResult. It runs in the SMTP thread (smtpThread.ts),
// so it takes plain settings rather than the process's Config.
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Config } from '../config.ts';
import { composeMessage } from './mime.ts';
import { SmtpPool, type SmtpPoolOptions } from './smtpPool.ts';
import type { OutgoingMessage, SendResult } from './outgoing.ts';

export type SmtpSettings = SmtpPoolOptions;

/** A message as the SMTP thread takes it: its Message-ID already chosen (on the sender's side). */
export type AddressedMessage = OutgoingMessage & { messageId: string };

export function smtpSettings(config: Config): SmtpSettings {
  const dkim =
    config.DKIM_DOMAIN && config.DKIM_SELECTOR && config.DKIM_PRIVATE_KEY
      ? {
          domainName: config.DKIM_DOMAIN,
          keySelector: config.DKIM_SELECTOR,
          privateKey: config.DKIM_PRIVATE_KEY.replace(/\\n/g, '\n'),
        }
      : undefined;
  const url = new URL(config.SMTP_URL!);
  return {
    // SEND_CONCURRENCY connections, each reused for every message (reconnecting per message halves throughput)
    maxConnections: Math.max(1, config.SEND_CONCURRENCY),
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { rejectUnauthorized: url.searchParams.get('tls_reject_unauthorized') !== 'false' },
    ignoreTLS: url.searchParams.get('starttls') === 'false',
    dkim,
  };
}

export interface SmtpSender {
  send(msg: AddressedMessage): Promise<SendResult>;
  close(): void;
}

export function smtpSender(settings: SmtpSettings): SmtpSender {
  const pool = new SmtpPool(settings);
  return {
    async send(msg) {
      const { messageId } = msg;
      try {
        // composed in one pass (mime.ts); what it leaves alone (unusual addresses) nodemailer composes
        const composed = composeMessage(msg) ?? (await composeWithNodemailer(msg, messageId));
        const response = await pool.send(composed.envelope, composed.raw);
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
  return { raw: await node.build(), envelope: { from: envelope.from || '', to: envelope.to } };
}
