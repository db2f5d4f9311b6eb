// Webhook delivery: fan-out of events to deliveries, Standard Webhooks signing, one attempt
// per claim, and the retry schedule. At-least-once: a delivery row exists per (webhook, event) before
// anything is sent, and is only finished after the receiver answered; `webhook-id` is the same on every
// retry so receivers can drop duplicates. No network I/O happens inside a transaction.
import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { DeliveryStatus, WebhookPayload } from '../../db/schema/webhooks.ts';
import type { FeedBatch } from '../events/feed.ts';
import { recordEvent } from '../events/log.ts';
import { post, type PostResult } from './target.ts';
import { inTransaction } from '../transaction.ts';

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's base64 part (Standard Webhooks). */
export function sign(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The retry delays in seconds after attempt 1, 2, …; past the last one the delivery has failed. */
export function retrySchedule(config: Config): number[] {
  return config.WEBHOOK_RETRY_SCHEDULE.split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n >= 0);
}

/**
 * Queues one delivery per (enabled webhook subscribed to the type, event) for the events in the batch.
 * One INSERT … SELECT; the payload is frozen now, so a later change or erasure of the source row does
 * not alter what a retry sends (forget_subscriber scrubs it explicitly).
 */
export async function fanOut(trx: Db, batch: FeedBatch): Promise<number> {
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
    on conflict (webhook_id, event_id) do nothing`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

export interface Claimed {
  id: string;
  account_id: string;
  webhook_id: string;
  payload: WebhookPayload;
  attempt_count: number;
  is_test: boolean;
  url: string;
  secret: string;
}

/**
 * Leases up to `limit` due deliveries of enabled webhooks (FOR UPDATE SKIP LOCKED, so instances never
 * share one). The lease outlives one attempt; a worker that dies mid-attempt lets it lapse and the
 * delivery is tried again (at-least-once).
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<Claimed[]> {
  const { rows } = await sql<Claimed>`
    update webhook_deliveries d
       set locked_until = now() + make_interval(secs => ${leaseMs / 1000})
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
    returning d.id, d.account_id, d.webhook_id, d.payload, d.attempt_count, d.is_test, w.url, w.secret`.execute(db);
  return rows;
}

/** One signed POST of the delivery's payload (network; call outside any transaction). */
export function attempt(config: Config, d: Pick<Claimed, 'id' | 'payload' | 'url' | 'secret'>, signal?: AbortSignal): Promise<PostResult> {
  const p = d.payload;
  const body = JSON.stringify({ id: p.id, event_type: p.event_type, created_at: p.created_at, account_id: p.account_id, data: p.data });
  const msgId = `msg_${d.id}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': `Mailgrove-Webhooks/${config.version}`,
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(d.secret, msgId, timestamp, body),
  };
  return post(d.url, body, headers, { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_URLS, signal });
}

/**
 * Writes an attempt's outcome: the attempt log row, the delivery's next state (delivered, retry at the
 * next step of the schedule, or failed), the webhook's last_delivery, and — when a webhook has been
 * failing for WEBHOOK_DISABLE_AFTER_SECONDS — disables it and records webhook.disabled.
 */
export async function recordAttempt(db: Db, config: Config, d: Pick<Claimed, 'id' | 'account_id' | 'webhook_id' | 'attempt_count' | 'is_test'>, r: PostResult): Promise<DeliveryStatus> {
  const schedule = retrySchedule(config);
  const n = d.attempt_count + 1;
  const now = new Date();
  const retryIn = !r.ok && !d.is_test ? schedule[n - 1] : undefined;
  const status: DeliveryStatus = r.ok ? 'delivered' : retryIn !== undefined ? 'pending' : 'failed';
  await inTransaction(db, async (trx) => {
    const delivery = await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempt_count: n,
        next_attempt_at: retryIn !== undefined ? new Date(now.getTime() + retryIn * 1000) : null,
        locked_until: null,
        last_status_code: r.status_code,
        delivered_at: r.ok ? now : null,
      })
      .where('id', '=', d.id)
      .returning('id')
      .executeTakeFirst();
    if (!delivery) return; // the webhook was deleted while we were posting: nothing left to log
    await trx
      .insertInto('webhook_delivery_attempts')
      .values({ account_id: d.account_id, delivery_id: d.id, attempt: n, status_code: r.status_code, duration_ms: r.duration_ms, response: r.response, error: r.error?.slice(0, 1000) ?? null })
      .execute();
    const hook = await trx
      .updateTable('webhooks')
      .set((eb) => ({
        last_delivery_at: now,
        last_status_code: r.status_code,
        // a test event says nothing about whether real deliveries are failing
        ...(!d.is_test && { failing_since: r.ok ? null : eb.fn.coalesce('failing_since', sql<Date>`${now}::timestamptz`) }),
      }))
      .where('id', '=', d.webhook_id)
      .returning(['id', 'name', 'url', 'enabled', 'failing_since'])
      .executeTakeFirst();
    if (!hook || r.ok || d.is_test || !hook.enabled || !hook.failing_since) return;
    if (now.getTime() - new Date(hook.failing_since).getTime() < config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000) return;
    const reason = `Deliveries failed continuously since ${new Date(hook.failing_since).toISOString()}`;
    await trx.updateTable('webhooks').set({ enabled: false, disabled_reason: reason, updated_at: now }).where('id', '=', hook.id).execute();
    await recordEvent(trx, d.account_id, 'webhook.disabled', { webhook: { id: hook.id, name: hook.name, url: hook.url }, reason, failing_since: hook.failing_since });
  });
  return status;
}

/** Sends a `webhook.test` event now, once (no retries), and logs it like any delivery. */
export async function sendTest(db: Db, config: Config, hook: { id: string; account_id: string; name: string; url: string; secret: string }) {
  const eventId = randomUUID();
  const payload: WebhookPayload = {
    id: eventId,
    event_type: 'webhook.test',
    created_at: new Date().toISOString(),
    account_id: hook.account_id,
    data: { webhook: { id: hook.id, name: hook.name }, message: 'This is a test event from Mailgrove.' },
  };
  const row = await db
    .insertInto('webhook_deliveries')
    .values({ account_id: hook.account_id, webhook_id: hook.id, event_id: eventId, event_type: 'webhook.test', payload: JSON.stringify(payload), is_test: true })
    .returning(['id', 'attempt_count'])
    .executeTakeFirstOrThrow();
  const result = await attempt(config, { id: row.id, payload, url: hook.url, secret: hook.secret });
  const status = await recordAttempt(db, config, { id: row.id, account_id: hook.account_id, webhook_id: hook.id, attempt_count: 0, is_test: true }, result);
  return { delivery_id: row.id, event_id: eventId, status, status_code: result.status_code, duration_ms: result.duration_ms, response: result.response, error: result.error };
}
