// Event types and recordEvent, the one way a state change is logged.
// Call it with the transaction that makes the change, so the event commits or rolls back with it.
import type { Db } from '../../db/client.ts';
import { insertEvents } from './queries.ts';

export const EVENT_TYPES = [
  'subscriber.created',
  'subscriber.updated',
  'subscriber.unsubscribed',
  'subscriber.deleted',
  'subscriber.added_to_group',
  'subscriber.removed_from_group',
  'subscriber.bounced',
  'subscriber.complained',
  'campaign.sent',
  // not in the list of event types: a scheduled campaign that failed the checks before sending when its
  // time came, and went back to draft
  'campaign.refused',
  'email.sent',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'form.submitted',
  'import.completed',
  'automation.completed',
  // not in the list of event types: tells other webhooks that one was disabled after failing for 5 days
  'webhook.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventInput {
  type: EventType;
  subscriberId?: string | null;
  data: Record<string, unknown>;
}

export async function recordEvent(
  db: Db,
  accountId: string,
  type: EventType,
  data: Record<string, unknown>,
  subscriberId?: string | null,
): Promise<void> {
  await recordEvents(db, accountId, [{ type, data, subscriberId }]);
}

/** One INSERT for many events (batch operations: imports, group assignment, sending). */
export async function recordEvents(db: Db, accountId: string, events: EventInput[]): Promise<void> {
  if (events.length > 0) await insertEvents(db, accountId, events);
}
