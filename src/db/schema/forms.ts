// Kysely types of the forms tables (migration 20261121_0920_forms.sql).
import type { ColumnType, Generated } from 'kysely';
import type { JsonColumn, NullableTimestamp, Timestamp } from './core.ts';

export type FormType = 'hosted' | 'embedded' | 'popup';
export interface FormField {
  key: string;
  label: string;
  required: boolean;
}

export interface FormsTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  type: Generated<FormType>;
  group_ids: Generated<string[]>;
  double_opt_in: Generated<boolean>;
  fields: JsonColumn<FormField[]>;
  success_message: string;
  redirect_url: string | null;
  active: Generated<boolean>;
  views: Generated<number>;
  submissions: Generated<number>;
  confirmations: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PendingSignupData {
  first_name?: string;
  last_name?: string;
  phone?: string;
  custom_fields?: Record<string, unknown>;
}

export interface PendingSignupsTable {
  id: Generated<string>;
  account_id: string;
  form_id: string;
  email: string;
  data: JsonColumn<PendingSignupData>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  last_sent_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  subscriber_id: string | null;
  created_at: Timestamp;
}

export interface FormSignupsTable {
  form_id: string;
  subscriber_id: string;
  account_id: string;
  created_at: Timestamp;
}

export interface FormsTables {
  forms: FormsTable;
  pending_signups: PendingSignupsTable;
  form_signups: FormSignupsTable;
}
