// Kysely types of the mail tables (migration 20261121_0810_outbox.sql).
import type { Generated } from 'kysely';
import type { JsonColumn, Timestamp } from './core.ts';

export interface OutboxTable {
  id: Generated<string>;
  account_id: string | null;
  message_id: string;
  from_addr: string;
  to_addr: string;
  subject: string;
  html: string | null;
  text: string | null;
  headers: JsonColumn<Record<string, string>>;
  created_at: Timestamp;
}

export interface MailTables {
  outbox: OutboxTable;
}
