// Webhooks of one account: create, get, list, update, remove, the delivery log, a test event.
// URLs pass the SSRF rule before they are saved (target.ts); the secret is generated here and shown
// only by create and get. Every query filters by accountId; another account's id reads as not found.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { offsetOf, PageQuery, pageOf, type Page, type Paging } from '../paging.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { DeliveryRow, WebhookRow } from '../../db/schema/webhooks.ts';
import { NotFound, StateConflict, Validation } from '../errors.ts';
import { EVENT_TYPES } from '../events/log.ts';
import { inTransaction } from '../transaction.ts';
import { isCalendarDate, isInstant, parseInput } from '../validation.ts';
import { sendTest } from './delivery.ts';
import * as queries from './queries.ts';
import { refusalOf } from './target.ts';

export const NOT_FOUND = 'Webhook not found';
export const DELIVERY_NOT_FOUND = 'Delivery not found';

/** `*` subscribes to every event type, including ones added later. */
export const WEBHOOK_EVENTS = [...EVENT_TYPES, '*'] as const;

const Name = z.string().trim().min(1, 'Name must not be empty').max(255, 'Name must be at most 255 characters');
const Url = z
  .string({ error: 'url is required' })
  .trim()
  .min(1, 'url is required')
  .max(2048, 'URL must be at most 2048 characters');
const Events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `Each event must be one of: ${WEBHOOK_EVENTS.join(', ')}` }), {
    error: 'events must be a list of event types',
  })
  .min(1, 'At least one event is required')
  .max(WEBHOOK_EVENTS.length)
  .transform((list) => [...new Set(list)]);

export const NewWebhook = z.object({
  name: Name.optional().describe('A label for the webhook (default: the URL host).'),
  url: Url.describe('The http(s) URL that receives a signed POST per event.'),
  events: Events.describe('Event types to receive, e.g. ["subscriber.created"]; "*" means all.'),
  enabled: z
    .boolean({ error: 'enabled must be true or false' })
    .default(true)
    .describe('Whether events are delivered (default true).'),
});
export type NewWebhook = z.input<typeof NewWebhook>;

export const WebhookUpdate = z.object({
  name: Name.optional().describe('A new label for the webhook.'),
  url: Url.optional().describe('A new http(s) URL to deliver to.'),
  events: Events.optional().describe('The event types to receive from now on (replaces the list); "*" means all.'),
  enabled: z
    .boolean({ error: 'enabled must be true or false' })
    .optional()
    .describe('false pauses deliveries; true resumes them.'),
});
export type WebhookUpdate = z.input<typeof WebhookUpdate>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** REST query strings and MCP arguments alike; per_page above 100 is clamped. */
export const ListQuery = PageQuery;
export type ListQuery = z.input<typeof ListQuery>;

// a day (its first moment in UTC) or a date-time with its offset
const Instant = (name: string) =>
  z
    .string()
    .refine((v) => isCalendarDate(v) || isInstant(v), {
      error: `${name} must be an ISO 8601 date (2026-03-01) or date-time with an offset`,
    })
    .transform((v) => new Date(v));

/** The delivery log's filters: status, event type, and a time window on when the delivery was made. */
export const DeliveriesQuery = ListQuery.extend({
  status: z.enum(DELIVERY_STATUSES, { error: 'status must be one of: pending, delivered, failed' }).optional(),
  event: z
    .enum(
      WEBHOOK_EVENTS.filter((e) => e !== '*'),
      { error: 'event must be a webhook event type' },
    )
    .optional(),
  since: Instant('since').optional(),
  until: Instant('until').optional(),
}).refine((q) => !q.since || !q.until || q.since <= q.until, {
  error: 'since must not be after until',
  path: ['until'],
});
export type DeliveriesQuery = z.input<typeof DeliveriesQuery>;

/** DNS_SERVERS: the resolver the host is looked up through (the system's servers when absent) */
type UrlPolicy = Pick<Config, 'ALLOW_PRIVATE_WEBHOOK_URLS'> & Partial<Pick<Config, 'DNS_SERVERS'>>;

/** Standard Webhooks secret format: whsec_ + base64 of 24 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function view(row: WebhookRow) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    last_delivery: row.last_delivery_at ? { at: row.last_delivery_at, status_code: row.last_status_code } : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
export type Webhook = ReturnType<typeof view>;

async function checkUrl(url: string, policy: UrlPolicy): Promise<void> {
  const refusal = await refusalOf(url, policy.ALLOW_PRIVATE_WEBHOOK_URLS, {
    DNS_SERVERS: policy.DNS_SERVERS ?? '',
  });
  if (refusal) throw Validation.field('url', refusal);
}

export async function create(
  db: Db,
  accountId: string,
  input: unknown,
  policy: UrlPolicy,
): Promise<Webhook & { secret: string }> {
  const a = parseInput(NewWebhook, input);
  await checkUrl(a.url, policy); // DNS: before, never inside, the transaction
  const row = await queries.insertWebhook(db, {
    account_id: accountId,
    name: a.name ?? new URL(a.url).host,
    url: a.url,
    events: a.events,
    enabled: a.enabled,
    secret: newSecret(),
  });
  return { ...view(row), secret: row.secret };
}

async function find(db: Db, accountId: string, id: string): Promise<WebhookRow> {
  const row = await queries.findWebhook(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return row;
}

/** The webhook with its secret and its 10 most recent deliveries (get_webhook). */
export async function get(db: Db, accountId: string, id: string) {
  const row = await find(db, accountId, id);
  const recent = await deliveryPage(db, accountId, id, { page: 1, per_page: 10 });
  return { ...view(row), secret: row.secret, recent_deliveries: recent.items };
}

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<Webhook>> {
  const paging = parseInput(ListQuery, query);
  const rows = await queries.webhookPage(db, accountId, paging.per_page, offsetOf(paging));
  const total = await queries.countWebhooks(db, accountId);
  return pageOf(rows.map(view), paging, total);
}

export async function update(
  db: Db,
  accountId: string,
  id: string,
  input: unknown,
  policy: UrlPolicy,
): Promise<Webhook> {
  const u = parseInput(WebhookUpdate, input);
  if (u.url !== undefined) await checkUrl(u.url, policy);
  const row = await queries.updateWebhook(db, accountId, id, {
    ...(u.name !== undefined && { name: u.name }),
    ...(u.url !== undefined && { url: u.url }),
    ...(u.events !== undefined && { events: u.events }),
    ...(u.enabled !== undefined && { enabled: u.enabled }),
    // enabling again starts a fresh failure streak
    ...(u.enabled === true && { disabled_reason: null, failing_since: null }),
    updated_at: new Date(),
  });
  if (!row) throw new NotFound(NOT_FOUND);
  return view(row);
}

/**
 * Deletes the webhook with its delivery log; deliveries not yet made are dropped. In a transaction, so that a
 * deadlock PostgreSQL ends it with (another writer holding a delivery and then asking for the webhook's row)
 * runs it again; recording a delivery takes the two rows in the delete's order.
 */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  const row = await inTransaction(db, (trx) => queries.deleteWebhook(trx, accountId, id));
  if (!row) throw new NotFound(NOT_FOUND);
}

/** The delivery log of one webhook, newest first, each delivery with its attempts. */
export async function deliveries(
  db: Db,
  accountId: string,
  webhookId: string,
  query: unknown,
): Promise<Page<Delivery>> {
  const q = parseInput(DeliveriesQuery, query);
  await find(db, accountId, webhookId);
  return deliveryPage(db, accountId, webhookId, q);
}

async function deliveryPage(
  db: Db,
  accountId: string,
  webhookId: string,
  q: Paging & queries.DeliveryFilter,
): Promise<Page<Delivery>> {
  const rows = await queries.deliveryPage(db, accountId, webhookId, q, q.per_page, offsetOf(q));
  const total = await queries.countDeliveries(db, accountId, webhookId, q);
  const attempts =
    rows.length === 0
      ? []
      : await queries.attemptsOf(
          db,
          accountId,
          rows.map((r) => r.id),
        );
  return pageOf(
    rows.map((r) => deliveryView(r, attempts)),
    q,
    total,
  );
}

type Attempt = Awaited<ReturnType<typeof queries.attemptsOf>>[number];

/** A delivery as its log shows it, with its attempts in order; when it is next tried only while pending. */
function deliveryView(r: DeliveryRow, attempts: Attempt[]) {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    is_test: r.is_test,
    replay_of: r.replay_of,
    attempt_count: r.attempt_count,
    last_status_code: r.last_status_code,
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
    delivered_at: r.delivered_at,
    created_at: r.created_at,
    payload: r.payload,
    attempts: attempts.filter((a) => a.delivery_id === r.id).map(({ delivery_id: _d, ...a }) => a),
  };
}
export type Delivery = ReturnType<typeof deliveryView>;

/** Posts a signed `webhook.test` event to the webhook now and reports how the receiver answered. */
export async function test(db: Db, accountId: string, id: string, config: Config) {
  const row = await find(db, accountId, id);
  return sendTest(db, config, row);
}

/**
 * Queues a new delivery of a logged one: the same payload (event id and body), its own attempts, signed
 * afresh when the worker sends it, so it is durable and retried like any delivery. The replay of a replay
 * points at the first delivery, whose webhook-id every replay keeps.
 */
export async function replay(db: Db, accountId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
  const hook = await find(db, accountId, webhookId);
  const original = await queries.findDelivery(db, accountId, webhookId, deliveryId);
  if (!original) throw new NotFound(DELIVERY_NOT_FOUND);
  // the worker skips deliveries of a disabled webhook, so a replay queued now would wait unseen
  if (!hook.enabled) throw new StateConflict('Webhook is disabled; enable it to replay a delivery');
  const row = await queries.insertDelivery(db, {
    account_id: accountId,
    webhook_id: webhookId,
    event_id: original.event_id,
    event_type: original.event_type,
    payload: JSON.stringify(original.payload),
    is_test: original.is_test,
    replay_of: original.replay_of ?? original.id,
    next_attempt_at: new Date(),
  });
  return deliveryView(row, []);
}
