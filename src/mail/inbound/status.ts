// What this process's inbound listener and bounce mailbox poller are doing, for the Settings panel: set
// by src/jobs/inbound.ts when it starts them, read by the dashboard API. Per process, like the listener:
// any instance may receive, and each shows its own.
import type { InboundSummary } from '../../db/schema/instances.ts';
import type { ListenerState } from './listener.ts';

export interface MailboxState {
  /** the mailbox as host and folder, never its credentials */
  mailbox: string;
  lastPollAt: Date | null;
  lastError: string | null;
  processed: number;
  lastReceivedAt: Date | null;
}

export interface InboundStatus {
  listener: ListenerState | null;
  /** the listener was configured but could not start (port taken, unreadable TLS files) */
  listenerError: string | null;
  mailbox: MailboxState | null;
}

export const inboundStatus: InboundStatus = { listener: null, listenerError: null, mailbox: null };

/** What this process tells the other instances of its inbound side, with its heartbeat. */
export function inboundSummary(s: InboundStatus = inboundStatus): InboundSummary | null {
  if (!s.listener && !s.listenerError && !s.mailbox) return null;
  return {
    listener:
      s.listener || s.listenerError
        ? {
            listening: !!s.listener?.listening,
            address: s.listener?.address ?? null,
            tls: s.listener?.tls ?? false,
            error: s.listenerError,
            last_received_at: s.listener?.lastReceivedAt ?? null,
          }
        : null,
    mailbox: s.mailbox && {
      mailbox: s.mailbox.mailbox,
      last_poll_at: s.mailbox.lastPollAt,
      last_error: s.mailbox.lastError,
      last_received_at: s.mailbox.lastReceivedAt,
    },
  };
}
