// Kysely types of the automations tables (migrations 20261121_0950_automations.sql,
// 20261122_0900_automation_tracking.sql, 20261122_1000_automation_bounces.sql).
// event_cursors, shared with the webhook fan-out, is typed in schema/webhooks.ts.
import type { Generated, Selectable } from 'kysely';
import type { JsonColumn, NullableTimestamp, Timestamp } from './core.ts';
import type { LateFeedback } from './campaigns.ts';

export type RunStatus = 'active' | 'completed' | 'canceled' | 'failed';

/** One line of a run's history: what a step did, or why the run stopped. */
export interface RunHistoryDetail {
  /** the step's path, when the line is about a step */
  step?: string;
  type: string;
  result: string;
  [detail: string]: unknown;
}
export type RunHistoryEntry = RunHistoryDetail & { at: string };

export interface AutomationsTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  enabled: Generated<boolean>;
  enabled_at: Timestamp;
  trigger: JsonColumn<Record<string, unknown>>;
  steps: JsonColumn<unknown[]>;
  scanned_on: string | null;
  runs_started: Generated<number>;
  runs_completed: Generated<number>;
  runs_canceled: Generated<number>;
  runs_failed: Generated<number>;
  emails_sent: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AutomationRunsTable {
  id: Generated<string>;
  account_id: string;
  automation_id: string;
  subscriber_id: string;
  trigger_event_id: string;
  status: Generated<RunStatus>;
  current_step: string | null;
  step_state: string | null;
  step_attempts: Generated<number>;
  next_run_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  /** the worker instance holding the lease (migration 20261126_1900), released when it dies */
  locked_by: Generated<string | null>;
  history: JsonColumn<RunHistoryEntry[]>;
  emails_sent: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

export type AutomationEmailState = 'sending' | 'sent' | 'failed' | 'interrupted';

/** migration 20261122_0900_automation_tracking.sql: one row per email of a run, tracked like a campaign's */
export interface AutomationEmailsTable {
  id: Generated<string>;
  account_id: string;
  automation_id: string;
  run_id: string;
  step: string;
  subscriber_id: string;
  state: Generated<AutomationEmailState>;
  links_key: string | null;
  message_id: string | null;
  sent_at: NullableTimestamp;
  opens: Generated<number>;
  clicks: Generated<number>;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  /** migration 20261122_1000_automation_bounces.sql: accounting like campaign_recipients */
  unsubscribed_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  soft_bounces: Generated<number>;
  complained_at: NullableTimestamp;
  created_at: Timestamp;
  /** what a report that arrived later by mail said about this email (migration 20261206_1100) */
  feedback: LateFeedback | null;
  feedback_status: string | null;
  feedback_detail: string | null;
  feedback_at: NullableTimestamp;
}

export interface AutomationLinksTable {
  automation_id: string;
  links_key: string;
  idx: number;
  url: string;
}

export interface AutomationsTables {
  automations: AutomationsTable;
  automation_runs: AutomationRunsTable;
  automation_emails: AutomationEmailsTable;
  automation_links: AutomationLinksTable;
}

export type AutomationRow = Selectable<AutomationsTable>;
export type RunRow = Selectable<AutomationRunsTable>;
