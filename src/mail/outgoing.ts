// What goes to a transport and what comes back: shared by the transport (transport.ts) and the SMTP
// thread's two sides (smtpThreadClient.ts, smtpThread.ts), which run in different threads.
import type { MimeMessage } from './mime.ts';

export interface OutgoingMessage extends Omit<MimeMessage, 'messageId' | 'date'> {
  accountId: string | null;
  /** without angle brackets; generated when absent */
  messageId?: string;
  /** the SMTP MAIL FROM (a VERP return path, verp.ts); the From address when absent */
  envelopeFrom?: string;
  /** the key to sign with instead of the instance key: the account's verified sending domain's */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  /** which of the account's relays carries the message; absent: the instance's SMTP_URL */
  relayId?: string;
}

export type SendResult =
  { ok: true; messageId: string; response?: string } | { ok: false; permanent: boolean; code?: number; error: string };
