// Kysely types of the sending-domain tables (migration 20261206_1000_sending_domains.sql).
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.ts';

export type SendingDomainStatus = 'pending' | 'verified' | 'failed';
export type DnsPurpose = 'dkim' | 'spf' | 'dmarc' | 'return_path';

/** One DNS check of a sending domain: what was looked for and what DNS answered (null: nothing). */
export interface DomainCheck {
  purpose: DnsPurpose;
  ok: boolean;
  found: string | null;
}

export interface SendingDomainsTable {
  id: Generated<string>;
  account_id: string;
  domain: string;
  selector: string;
  public_key: string;
  private_key_sealed: string;
  status: ColumnType<SendingDomainStatus, SendingDomainStatus | undefined, SendingDomainStatus>;
  checks: ColumnType<DomainCheck[], string | undefined, string>;
  checked_at: NullableTimestamp;
  verified_at: NullableTimestamp;
  created_at: Timestamp;
}

/** An account's SMTP relay (migration 20261207_0100_smtp_relays.sql): its URL sealed, its domains apart. */
export interface SmtpRelaysTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  host: string;
  port: number;
  secure: boolean;
  has_credentials: boolean;
  url_sealed: string;
  created_at: Timestamp;
}

export interface SmtpRelayDomainsTable {
  account_id: string;
  domain: string;
  relay_id: string;
}

export interface SendingTables {
  sending_domains: SendingDomainsTable;
  smtp_relays: SmtpRelaysTable;
  smtp_relay_domains: SmtpRelayDomainsTable;
}

export type SendingDomainRow = Selectable<SendingDomainsTable>;
export type SmtpRelayRow = Selectable<SmtpRelaysTable>;
