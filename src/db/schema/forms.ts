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
  /** the author's confirmation mail (migration 20261206_1310); null: the built-in one */
  confirmation_subject: string | null;
  confirmation_format: Generated<'html' | 'blocks'>;
  confirmation_source: string | null;
  confirmation_html: string | null;
  /** the readable public address /f/<slug> (migration 20261207_0500); null: the id address only */
  slug: string | null;
  /** the designer's document, validated by FormDesign in src/domain/forms/design.ts */
  design: JsonColumn<FormDesignDoc>;
}

/** What forms.design holds (all optional; defaults are filled where it is shown). */
export interface FormDesignDoc {
  heading?: string;
  description?: string;
  button_text?: string;
  colors?: { accent?: string; background?: string; text?: string };
  consent?: { text: string; required: boolean } | null;
  check_inbox_message?: string;
  confirmed_message?: string;
  popup?: {
    style: 'popup' | 'slide_in';
    trigger: 'delay' | 'scroll' | 'exit';
    delay_seconds: number;
    scroll_percent: number;
  };
}

export interface PendingSignupData {
  first_name?: string;
  last_name?: string;
  phone?: string;
  custom_fields?: Record<string, unknown>;
  /** IANA zone: the hosted form's browser zone, or the API caller's time_zone */
  time_zone?: string;
  /** groups an API sign-up joins on confirmation (a form's own groups come from the form) */
  group_ids?: string[];
  /** the consent text the person ticked, kept as a note on the subscriber once confirmed */
  consent?: string;
}

export interface PendingSignupsTable {
  id: Generated<string>;
  account_id: string;
  /** null: a sign-up through the API without a form (account defaults) */
  form_id: string | null;
  email: string;
  data: JsonColumn<PendingSignupData>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  last_sent_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  subscriber_id: string | null;
  /** set when confirmed by hand: who (a dashboard user's email or an API key's name) and why */
  confirmed_by: string | null;
  confirm_reason: string | null;
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
