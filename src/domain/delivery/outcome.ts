// The one outcome rule of bulk mail: what the mail server's answer to one message makes of it, for a
// campaign's ledger row and an automation's email alike. The reply is read and classed by mail/smtpReply.ts
// (hard, blocked, failed, deferred, throttled); this file decides what each class does: sent; failed for
// good as bounced (hard), blocked (5.7.x) or rejected (any other 5xx); or queued again after a backoff (4xx,
// no answer) until SEND_MAX_ATTEMPTS ran out, then failed as expired (a 4xx) or error (never an answer).
// Which failures the subscriber's bounce rules must see is decided here too (`bounceOf`).
import type { Config } from '../../config.ts';
import { classify, parseReply, type SmtpReply } from '../../mail/smtpReply.ts';
import type { SendResult } from '../../mail/transport.ts';
import type { Outcome } from './ledgerQueries.ts';

export type { Outcome } from './ledgerQueries.ts';

export type OutcomeConfig = Pick<Config, 'SEND_MAX_ATTEMPTS' | 'SEND_RETRY_BASE_MS'> &
  Partial<Pick<Config, 'SOFT_BOUNCE_LIMIT'>>;

/** `attempts`: which attempt this message was (1 for the first). */
export function outcomeOf(config: OutcomeConfig, row: { id: number; attempts: number }, res: SendResult): Outcome {
  if (res.ok) {
    // the 250 line costs one short regex; the outbox has no reply at all
    return res.response === undefined
      ? { id: row.id, state: 'sent', message_id: res.messageId }
      : { id: row.id, state: 'sent', message_id: res.messageId, reply: parseReply(null, res.response) };
  }
  const { SEND_MAX_ATTEMPTS: max, SEND_RETRY_BASE_MS: base } = config;
  const error = res.code ? `${res.code} ${res.error}`.slice(0, 1000) : res.error.slice(0, 1000);
  const parsed = res.code === undefined ? parseReply(null, '') : parseReply(res.code, res.error);
  // a lost connection or a timeout is no reply: nothing of it is stored as one
  const reply: SmtpReply | undefined = parsed.code === null ? undefined : parsed;
  const klass = reply ? classify(reply) : res.permanent ? 'failed' : 'deferred';
  if (klass === 'hard') return { id: row.id, state: 'failed', error, failure: 'bounced', reply };
  if (klass === 'blocked') return { id: row.id, state: 'failed', error, failure: 'blocked', reply };
  if (klass === 'failed') return { id: row.id, state: 'failed', error, failure: reply ? 'rejected' : 'error', reply };
  if (row.attempts >= Math.max(1, max)) {
    if (!reply) return { id: row.id, state: 'failed', error, failure: 'error' };
    // a mailbox that stayed unavailable is a soft bounce of the subscriber; a provider that kept
    // throttling the sender says nothing about the mailbox
    const soft = klass === 'deferred' ? { soft_bounce_limit: config.SOFT_BOUNCE_LIMIT ?? 0 } : {};
    return { id: row.id, state: 'failed', error, failure: 'expired', reply, ...soft };
  }
  const retry_in_ms = Math.max(1, base * 2 ** (row.attempts - 1));
  return { id: row.id, state: 'queued', error, retry_in_ms, reply, reply_class: klass };
}

/**
 * What the subscriber's bounce rules see of an outcome: a hard bounce; a soft one (an expired deferral,
 * counted toward `limit` in a row); or nothing.
 */
export function bounceOf(o: Outcome): { kind: 'hard' } | { kind: 'soft'; limit: number } | null {
  if (o.state !== 'failed') return null;
  if (o.failure === 'bounced') return { kind: 'hard' };
  if (o.failure === 'expired' && o.soft_bounce_limit) return { kind: 'soft', limit: o.soft_bounce_limit };
  return null;
}

/** Whether the mail server's answer asks the recipient's whole provider to slow down (421, 4.7.x). */
export function isThrottled(res: SendResult): boolean {
  return !res.ok && res.code !== undefined && classify(parseReply(res.code, res.error)) === 'throttled';
}

/**
 * A message the provider throttled is tried again when the provider's backoff ends rather than after the
 * recipient's own retry delay (the other messages for the provider wait as long without an attempt).
 */
export function throttledOutcome(base: Outcome, until: Date): Outcome {
  return base.state === 'queued' ? { ...base, retry_in_ms: Math.max(1, until.getTime() - Date.now()) } : base;
}

/** A send that threw instead of answering (connection lost, …): worth another try. */
export function transient(err: unknown): SendResult {
  return { ok: false, permanent: false, error: String((err as Error)?.message ?? err) };
}

/** A message whose template failed at render time: it fails the same way every time. */
export function renderFailed(id: number, err: unknown): Outcome {
  return { id, state: 'failed', error: `Template error: ${(err as Error).message}`, failure: 'error' };
}
