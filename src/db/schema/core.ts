// Kysely types of the core tables (migration 20261121_0800_core.sql).
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** a timestamptz with a default: optional on insert */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: read as T, written as a JSON string (JSON.stringify) on both drivers */
export type JsonColumn<T = unknown> = ColumnType<T, string | undefined, string>;

export interface AccountsTable {
  id: Generated<string>;
  name: string;
  subscriber_limit: number;
  default_from_name: string | null;
  default_from_email: string | null;
  default_reply_to: string | null;
  tracking_enabled: Generated<boolean>;
  verify_emails: Generated<boolean>;
  timezone: Generated<string>;
  bounce_secret: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** the sender's physical address, shown in every email's footer (migration 20261206_1400) */
  postal_address: string | null;
  /** checks before a send that refuse it for this account beyond the instance's (migration 20261206_1400) */
  blocking_checks: Generated<string[]>;
}

export interface UsersTable {
  id: Generated<string>;
  idp_user_id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  created_at: Timestamp;
  totp_pending_secret: string | null;
  totp_secret: string | null;
  totp_enabled_at: NullableTimestamp;
  totp_last_step: number | null;
}

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'editor' | 'viewer';
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  user_id: string;
  name: string;
  scopes: string[];
  key_hash: string;
  hint: string;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface FieldsTable {
  id: Generated<string>;
  account_id: string;
  key: string;
  name: string;
  type: 'text' | 'number' | 'date' | 'boolean';
  created_at: Timestamp;
}

export type SubscriberStatus = 'active' | 'unsubscribed' | 'bounced' | 'complained';

export interface SubscribersTable {
  id: Generated<string>;
  account_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: Generated<SubscriberStatus>;
  custom_fields: JsonColumn<Record<string, unknown>>;
  source: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  unsubscribed_at: NullableTimestamp;
  /** the subscriber's group ids, kept by triggers on subscriber_groups; may hold deleted groups' ids (ledgerQueries.ts) */
  member_of: Generated<string[]>;
  /** IANA zone for local-time delivery; null: the account's (migration 20261206_1200) */
  time_zone: Generated<string | null>;
}

export interface GroupsTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SubscriberGroupsTable {
  group_id: string;
  subscriber_id: string;
  account_id: string;
  created_at: Timestamp;
}

export interface SubscriberNotesTable {
  id: Generated<string>;
  account_id: string;
  subscriber_id: string;
  content: string;
  created_at: Timestamp;
}

export interface EventsTable {
  id: Generated<string>;
  seq: Generated<number>;
  account_id: string;
  type: string;
  subscriber_id: string | null;
  data: JsonColumn<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface SuppressionsTable {
  id: Generated<string>;
  account_id: string;
  /** kept for manual entries only, so the list can show and export them; forgotten ones are the hash alone */
  email: string | null;
  email_hash: string;
  reason: string;
  created_at: Timestamp;
}

export interface InstanceSettingsTable {
  key: string;
  value: string;
  created_at: Timestamp;
}

export interface CoreTables {
  instance_settings: InstanceSettingsTable;
  accounts: AccountsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  fields: FieldsTable;
  subscribers: SubscribersTable;
  groups: GroupsTable;
  subscriber_groups: SubscriberGroupsTable;
  subscriber_notes: SubscriberNotesTable;
  events: EventsTable;
  suppressions: SuppressionsTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type SubscriberRow = Selectable<SubscribersTable>;
export type NewSubscriberRow = Insertable<SubscribersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type FieldRow = Selectable<FieldsTable>;
