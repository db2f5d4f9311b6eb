// SQL for webhooks, their deliveries and the attempts of each: one function per query. Reads that answer
// an account filter by accountId; the delivery worker finds rows by their own ids.
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type {
  DeliveryStatus,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
  WebhookPayload,
  WebhooksTable,
} from '../../db/schema/webhooks.ts';
import type { FeedBatch } from '../events/feed.ts';

/** A leased delivery with what an attempt needs of its webhook. */
export interface Claimed {
  id: string;
  account_id: string;
  webhook_id: string;
  payload: WebhookPayload;
  attempt_count: number;
  is_test: boolean;
  replay_of: string | null;
  url: string;
  secret: string;
}

// ---- webhooks ----

export function insertWebhook(db: Db, row: Insertable<WebhooksTable>) {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

const webhooks = ownedRows('webhooks');
export const findWebhook = webhooks.find;
export const webhookPage = webhooks.page;
export const countWebhooks = webhooks.count;

export function updateWebhook(db: Db, accountId: string, id: string, changes: Updateable<WebhooksTable>) {
  return db
    .updateTable('webhooks')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export const deleteWebhook = webhooks.remove;

/**
 * Notes a real or test delivery's answer on its webhook. `streak` moves the failure streak: 'ended' by a
 * success, 'failing' by a failure (kept from its first failure on), left alone when undefined.
 */
export function noteDelivery(
  trx: Db,
  webhookId: string,
  at: Date,
  statusCode: number | null,
  streak: 'ended' | 'failing' | undefined,
) {
  return trx
    .updateTable('webhooks')
    .set((eb) => ({
      last_delivery_at: at,
      last_status_code: statusCode,
      ...(streak !== undefined && {
        failing_since: streak === 'ended' ? null : eb.fn.coalesce('failing_since', sql<Date>`${at}::timestamptz`),
      }),
    }))
    .where('id', '=', webhookId)
    .returning(['id', 'name', 'url', 'enabled', 'failing_since'])
    .executeTakeFirst();
}

export async function disableWebhook(trx: Db, id: string, reason: string, at: Date): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({ enabled: false, disabled_reason: reason, updated_at: at })
    .where('id', '=', id)
    .execute();
}

// ---- deliveries ----

/**
 * Queues one delivery per (enabled webhook subscribed to the type, event) for the events in the batch, in
 * one INSERT … SELECT with the payload frozen as the event is now.
 */
export async function insertDeliveriesFor(trx: Db, batch: FeedBatch): Promise<number> {
  const result = await sql`
    insert into webhook_deliveries (account_id, webhook_id, event_id, event_type, payload, next_attempt_at)
    select e.account_id, w.id, e.id, e.type,
           jsonb_build_object(
             'id', e.id, 'event_type', e.type,
             'created_at', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'account_id', e.account_id, 'data', e.data),
           now()
      from events e
      join webhooks w on w.account_id = e.account_id and w.enabled and (e.type = any(w.events) or '*' = any(w.events))
     where e.seq > ${batch.fromSeq} and e.seq <= ${batch.toSeq}
    on conflict (webhook_id, event_id) where replay_of is null do nothing`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

export function insertDelivery(db: Db, row: Insertable<WebhookDeliveriesTable>) {
  return db.insertInto('webhook_deliveries').values(row).returningAll().executeTakeFirstOrThrow();
}

/** One delivery of the account's webhook, for a replay. */
export function findDelivery(db: Db, accountId: string, webhookId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Leases up to `limit` due deliveries of enabled webhooks (FOR UPDATE SKIP LOCKED: instances never share
 * one), for the worker instance `instanceId` when given: its death releases them before the lease ends.
 */
export async function claimDueDeliveries(
  db: Db,
  limit: number,
  leaseMs: number,
  instanceId: string | null = null,
): Promise<Claimed[]> {
  const { rows } = await sql<Claimed>`
    update webhook_deliveries d
       set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), locked_by = ${instanceId}::uuid
      from webhooks w
     where w.id = d.webhook_id
       and d.id in (
         select d2.id from webhook_deliveries d2
           join webhooks w2 on w2.id = d2.webhook_id
          where d2.status = 'pending' and d2.next_attempt_at <= now() and w2.enabled
            and (d2.locked_until is null or d2.locked_until < now())
          order by d2.next_attempt_at
          limit ${limit}
          for update of d2 skip locked)
    returning d.id, d.account_id, d.webhook_id, d.payload, d.attempt_count, d.is_test, d.replay_of, w.url, w.secret`.execute(
    db,
  );
  return rows;
}

/** undefined when the delivery is gone (its webhook was deleted meanwhile). */
export function updateDelivery(trx: Db, id: string, changes: Updateable<WebhookDeliveriesTable>) {
  return trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).returning('id').executeTakeFirst();
}

export async function insertAttempt(trx: Db, row: Insertable<WebhookDeliveryAttemptsTable>): Promise<void> {
  await trx.insertInto('webhook_delivery_attempts').values(row).execute();
}

/** What the delivery log may be narrowed to; each absent part matches everything. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  event?: string;
  since?: Date;
  until?: Date;
}

function deliveriesOf(db: Db, accountId: string, webhookId: string, f: DeliveryFilter) {
  return db
    .selectFrom('webhook_deliveries')
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .$if(f.status !== undefined, (qb) => qb.where('status', '=', f.status!))
    .$if(f.event !== undefined, (qb) => qb.where('event_type', '=', f.event!))
    .$if(f.since !== undefined, (qb) => qb.where('created_at', '>=', f.since!))
    .$if(f.until !== undefined, (qb) => qb.where('created_at', '<=', f.until!));
}

/** Deliveries newest first. */
export function deliveryPage(
  db: Db,
  accountId: string,
  webhookId: string,
  filter: DeliveryFilter,
  limit: number,
  offset: number,
) {
  return deliveriesOf(db, accountId, webhookId, filter)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countDeliveries(
  db: Db,
  accountId: string,
  webhookId: string,
  filter: DeliveryFilter,
): Promise<number> {
  const { total } = await deliveriesOf(db, accountId, webhookId, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** The attempts of the given deliveries, in attempt order. */
export function attemptsOf(db: Db, accountId: string, deliveryIds: string[]) {
  return db
    .selectFrom('webhook_delivery_attempts')
    .select(['delivery_id', 'attempt', 'status_code', 'duration_ms', 'response', 'error', 'created_at'])
    .where('account_id', '=', accountId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('attempt')
    .execute();
}
