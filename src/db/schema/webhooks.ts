// Kysely types of the webhooks tables (migration 20261121_0940_webhooks.sql).
import type { Generated, Selectable } from 'kysely';
import type { JsonColumn, NullableTimestamp, Timestamp } from './core.ts';

export interface WebhooksTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  url: string;
  events: string[];
  enabled: Generated<boolean>;
  secret: string;
  last_delivery_at: NullableTimestamp;
  last_status_code: number | null;
  failing_since: NullableTimestamp;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** What a receiver gets: the event, as it was when it happened. */
export interface WebhookPayload {
  id: string;
  event_type: string;
  created_at: string;
  account_id: string;
  data: Record<string, unknown>;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  account_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: JsonColumn<WebhookPayload>;
  is_test: Generated<boolean>;
  /** The delivery this one repeats (a replay), or null for the delivery fan-out queued. */
  replay_of: Generated<string | null>;
  status: Generated<DeliveryStatus>;
  attempt_count: Generated<number>;
  next_attempt_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  /** the worker instance holding the lease (migration 20261126_1900), released when it dies */
  locked_by: Generated<string | null>;
  last_status_code: number | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<string>;
  account_id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
  created_at: Timestamp;
}

export interface EventCursorsTable {
  name: string;
  last_seq: number;
  updated_at: Timestamp;
}

export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  event_cursors: EventCursorsTable;
}

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
