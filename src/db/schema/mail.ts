// Kysely types of the mail tables (migration 20261121_0810_outbox.sql).
import type { Generated } from 'kysely';
import type { JsonColumn, NullableTimestamp, Timestamp } from './core.ts';

export interface OutboxTable {
  id: Generated<string>;
  account_id: string | null;
  message_id: string;
  from_addr: string;
  /** the SMTP MAIL FROM when it is not the From address: the VERP return path (migration 20261206_1100) */
  envelope_from: string | null;
  to_addr: string;
  subject: string;
  html: string | null;
  text: string | null;
  headers: JsonColumn<Record<string, string>>;
  created_at: Timestamp;
}

/** Mail the inbound listener or the bounce mailbox took (migration 20261206_1100). */
export interface InboundMailTable {
  id: Generated<string>;
  account_id: string | null;
  received_at: Timestamp;
  via: 'smtp' | 'imap';
  outcome: InboundOutcome;
  reason: string | null;
  mail_from: string | null;
  rcpt_to: string | null;
  subject: string | null;
  size: number;
  raw: Buffer | null;
}

export type InboundOutcome =
  | 'bounced'
  | 'soft_bounced'
  | 'blocked'
  | 'delayed'
  | 'complained'
  | 'unsubscribed'
  | 'auto_reply'
  | 'ignored'
  | 'unmatched';

/** An account's own bounce mailbox (migration 20261207_0300): the IMAP URL sealed, its host in clear. */
export interface BounceMailboxTable {
  account_id: string;
  url_sealed: string;
  host: string;
  last_polled_at: NullableTimestamp;
  last_error: string | null;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
}

/** Who polls a mailbox now, until when (migration 20261207_0300). */
export interface MailboxLeaseTable {
  mailbox: string;
  holder: string;
  expires_at: Timestamp;
}

export interface MailTables {
  outbox: OutboxTable;
  inbound_mail: InboundMailTable;
  bounce_mailboxes: BounceMailboxTable;
  mailbox_leases: MailboxLeaseTable;
}
