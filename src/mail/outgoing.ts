// What goes to a transport and what comes back: shared by the transport (transport.ts) and the SMTP
// thread's two sides (smtpThreadClient.ts, smtpThread.ts), which run in different threads.
import type { MimeMessage } from './mime.ts';

export interface OutgoingMessage extends Omit<MimeMessage, 'messageId' | 'date'> {
  accountId: string | null;
  /** without angle brackets; generated when absent */
  messageId?: string;
}

export type SendResult =
  { ok: true; messageId: string; response?: string } | { ok: false; permanent: boolean; code?: number; error: string };
