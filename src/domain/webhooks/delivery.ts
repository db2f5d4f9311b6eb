// Webhook delivery: fan-out of events to deliveries, Standard Webhooks signing, one attempt
// per claim, and the retry schedule. At-least-once: a delivery row exists per (webhook, event) before
// anything is sent, and is only finished after the receiver answered; `webhook-id` is the same on every
// retry so receivers can drop duplicates. No network I/O happens inside a transaction.
import { createHmac, randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { DeliveryStatus, WebhookPayload } from '../../db/schema/webhooks.ts';
import { EventFeed, webhookWanted, type FeedBatch } from '../events/feed.ts';
import { recordEvent } from '../events/log.ts';
import { noteWebhookAttempt } from '../operations/tallies.ts';
import * as queries from './queries.ts';
import type { Claimed } from './queries.ts';
import { post, type PostResult } from './target.ts';
import { inTransaction } from '../transaction.ts';
import * as leases from '../instances/queries.ts';

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
 * The fan-out's reader of the events log. Fan-out works on the seq range in SQL, so it reads seqs only;
 * events of accounts without a webhook for them are stepped over.
 */
export function eventFeed(): EventFeed {
  return new EventFeed('webhooks', 500, { seqsOnly: true, wanted: webhookWanted });
}

/** One round of fan-out: the next batch of events, as deliveries. */
export async function fanOutNext(db: Db, feed: EventFeed): Promise<{ handled: number; queued: number }> {
  let queued = 0;
  const handled = await feed.consume(db, async (trx, batch) => {
    queued = await fanOut(trx, batch);
  });
  return { handled, queued };
}

/**
 * Queues one delivery per (enabled webhook subscribed to the type, event) for the events in the batch.
 * The payload is frozen now, so a later change or erasure of the source row does not alter what a retry
 * sends (forget_subscriber scrubs it explicitly).
 */
export function fanOut(trx: Db, batch: FeedBatch): Promise<number> {
  return queries.insertDeliveriesFor(trx, batch);
}

/**
 * One round of the delivery worker: leases due deliveries, WEBHOOK_CONCURRENCY at a time (instances never
 * share one), and attempts each. The lease outlives one attempt; a worker that dies mid-attempt is seen
 * dead by the other instances, which release its leases (releaseOrphans), or else the lease lapses; the
 * delivery is tried again (at-least-once). Returns how many it took.
 */
export async function deliverDue(db: Db, config: Config, signal: AbortSignal, instanceId?: string): Promise<number> {
  // an attempt takes at most the timeout; the lease adds a margin for a slow database write after it
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + 60_000;
  const due = await queries.claimDueDeliveries(db, Math.max(1, config.WEBHOOK_CONCURRENCY), leaseMs, instanceId);
  await Promise.all(
    due.map(async (d) => {
      const result = await attempt(config, d, signal);
      // stopping mid-attempt: the stop hands the lease back (releaseHeldBy), another instance tries again
      if (signal.aborted) return;
      await recordAttempt(db, config, d, result);
    }),
  );
  return due.length;
}

/** Hands back the deliveries leased by worker instances that stopped heartbeating; how many. */
export function releaseOrphans(db: Db, timeoutMs: number): Promise<number> {
  return leases.releaseOrphanedLeases(db, 'webhook_deliveries', timeoutMs);
}

/** Hands back the deliveries this instance still leases (a graceful stop); how many. */
export function releaseHeldBy(db: Db, instanceId: string): Promise<number> {
  return leases.releaseLeasesOf(db, 'webhook_deliveries', instanceId);
}

/** One signed POST of the delivery's payload (network; call outside any transaction). */
export function attempt(
  config: Config,
  d: Pick<Claimed, 'id' | 'payload' | 'url' | 'secret'> & { replay_of?: string | null },
  signal?: AbortSignal,
): Promise<PostResult> {
  const p = d.payload;
  const body = JSON.stringify({
    id: p.id,
    event_type: p.event_type,
    created_at: p.created_at,
    account_id: p.account_id,
    data: p.data,
  });
  // a replay is the same message again, so receivers that drop duplicates by webhook-id see it as one
  const msgId = `msg_${d.replay_of ?? d.id}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': `Mailgrove-Webhooks/${config.version}`,
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(d.secret, msgId, timestamp, body),
  };
  return post(d.url, body, headers, {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_URLS,
    dns: config,
    signal,
  });
}

/**
 * Writes an attempt's outcome: the attempt log row, the delivery's next state (delivered, retry at the
 * next step of the schedule, or failed), the webhook's last_delivery, and — when a webhook has been
 * failing for WEBHOOK_DISABLE_AFTER_SECONDS — disables it and records webhook.disabled.
 */
export async function recordAttempt(
  db: Db,
  config: Config,
  d: Pick<Claimed, 'id' | 'account_id' | 'webhook_id' | 'attempt_count' | 'is_test'>,
  r: PostResult,
): Promise<DeliveryStatus> {
  const schedule = retrySchedule(config);
  const n = d.attempt_count + 1;
  const now = new Date();
  const retryIn = !r.ok && !d.is_test ? schedule[n - 1] : undefined;
  const status: DeliveryStatus = r.ok ? 'delivered' : retryIn !== undefined ? 'pending' : 'failed';
  await inTransaction(db, async (trx) => {
    // the webhook's row first, then the delivery's: the order in which deleting the webhook takes them (its
    // row, then the cascade to its deliveries), so the two wait for each other instead of deadlocking. A test
    // event says nothing about whether real deliveries are failing: it leaves the streak as it is.
    const hook = await queries.noteDelivery(
      trx,
      d.webhook_id,
      now,
      r.status_code,
      d.is_test ? undefined : r.ok ? 'ended' : 'failing',
    );
    if (!hook) return; // the webhook was deleted while we were posting: nothing left to log
    const delivery = await queries.updateDelivery(trx, d.id, {
      status,
      attempt_count: n,
      next_attempt_at: retryIn !== undefined ? new Date(now.getTime() + retryIn * 1000) : null,
      locked_until: null,
      locked_by: null,
      last_status_code: r.status_code,
      delivered_at: r.ok ? now : null,
    });
    if (!delivery) return;
    await queries.insertAttempt(trx, {
      account_id: d.account_id,
      delivery_id: d.id,
      attempt: n,
      status_code: r.status_code,
      duration_ms: r.duration_ms,
      response: r.response,
      error: r.error?.slice(0, 1000) ?? null,
    });
    if (r.ok || d.is_test || !hook.enabled || !hook.failing_since) return;
    if (now.getTime() - new Date(hook.failing_since).getTime() < config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000) return;
    const reason = `Deliveries failed continuously since ${new Date(hook.failing_since).toISOString()}`;
    await queries.disableWebhook(trx, hook.id, reason, now);
    await recordEvent(trx, d.account_id, 'webhook.disabled', {
      webhook: { id: hook.id, name: hook.name, url: hook.url },
      reason,
      failing_since: hook.failing_since,
    });
  });
  noteWebhookAttempt(status === 'pending' ? 'retrying' : status);
  return status;
}

/** Sends a `webhook.test` event now, once (no retries), and logs it like any delivery. */
export async function sendTest(
  db: Db,
  config: Config,
  hook: { id: string; account_id: string; name: string; url: string; secret: string },
) {
  const eventId = randomUUID();
  const payload: WebhookPayload = {
    id: eventId,
    event_type: 'webhook.test',
    created_at: new Date().toISOString(),
    account_id: hook.account_id,
    data: { webhook: { id: hook.id, name: hook.name }, message: 'This is a test event from Mailgrove.' },
  };
  const row = await queries.insertDelivery(db, {
    account_id: hook.account_id,
    webhook_id: hook.id,
    event_id: eventId,
    event_type: 'webhook.test',
    payload: JSON.stringify(payload),
    is_test: true,
  });
  // sent as stored (jsonb orders the keys its own way), so a replay of it is the same body byte for byte
  const result = await attempt(config, { id: row.id, payload: row.payload, url: hook.url, secret: hook.secret });
  const status = await recordAttempt(
    db,
    config,
    { id: row.id, account_id: hook.account_id, webhook_id: hook.id, attempt_count: 0, is_test: true },
    result,
  );
  return {
    delivery_id: row.id,
    event_id: eventId,
    status,
    status_code: result.status_code,
    duration_ms: result.duration_ms,
    response: result.response,
    error: result.error,
  };
}
