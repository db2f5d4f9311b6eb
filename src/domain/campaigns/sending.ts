// The steps the campaign send workers run, at most once per recipient: a worker claims a batch (one row
// of send_claims, the ledger rows untouched), and each row becomes 'sending', committed, just BEFORE its
// SMTP call; a row found in 'sending' whose worker is gone becomes 'interrupted' and is never sent again,
// the rest of such a worker's claim goes back to the queue. Each step is one set-based statement per
// batch or group, never a query per recipient, and composing a message allocates only what that message
// needs (the lanes send 100k messages a run).
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { prepare, type PreparedCampaign } from '../../mail/campaignMessage.ts';
import type { OutgoingMessage, SendResult } from '../../mail/transport.ts';
import { recordEvent } from '../events/log.ts';
import { applyAtSend, type HardBounce } from '../feedback/bounces.ts';
import { classify, parseReply, type SmtpReply } from '../feedback/smtpReply.ts';
import { inTransaction } from '../transaction.ts';
import * as ledger from './ledgerQueries.ts';
import {
  heartbeat,
  interruptOrphans,
  links,
  markSentIfDone,
  type Claimed,
  type Outcome,
  type Writes,
} from './ledgerQueries.ts';
import * as queries from './queries.ts';
import * as campaignStats from './stats.ts';

export type { PreparedCampaign } from '../../mail/campaignMessage.ts';
export type { Claim, Claimed, Mark, Outcome, Writes } from './ledgerQueries.ts';
export {
  backOff,
  backoffs,
  claim,
  defer,
  heartbeat,
  interruptOrphans,
  retireWorker,
  sendingCampaigns,
} from './ledgerQueries.ts';
export { campaignStatus } from './queries.ts';

/**
 * Keeps worker `me` among the live ones (its heartbeat), marks 'interrupted' what dead workers left
 * mid-send and puts back in the queue what they had only claimed (with `allButMe`, every other worker's
 * rows). Returns how many rows were interrupted and how many given back.
 */
export async function keepAlive(
  db: Db,
  me: string,
  opts: { leaseMs: number; allButMe?: boolean },
): Promise<{ interrupted: number; released: number }> {
  await heartbeat(db, me);
  return interruptOrphans(db, { ...opts, me });
}

/**
 * Marks 'sent' a campaign that is still 'sending' and has nobody queued or in flight, and writes
 * campaign.sent with its stats — once, whichever worker gets here first.
 */
export async function finishIfDone(db: Db, campaignId: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const done = await markSentIfDone(trx, campaignId);
    if (!done) return false;
    const stats = (await campaignStats.of(trx, done.account_id, [done.id])).get(done.id) ?? campaignStats.EMPTY;
    await recordEvent(trx, done.account_id, 'campaign.sent', { campaign: { id: done.id, name: done.name }, stats });
    return true;
  });
}

/** The campaign ready to compose each recipient's message: template compiled, sender and links resolved, once. */
export async function prepareCampaign(db: Db, config: Config, campaignId: string): Promise<PreparedCampaign> {
  const c = await queries.campaignById(db, campaignId);
  const account = await queries.account(db, c.account_id);
  return prepare(config, c, account, await links(db, campaignId));
}

/** A batch whose campaign could not be prepared: a template that compiled when saved should not fail here; if it does, nobody gets a broken mail. */
export function failAll(batch: Claimed[], err: unknown): Outcome[] {
  const error = `Template error: ${(err as Error).message}`;
  return batch.map((r) => ({ id: r.id, state: 'failed' as const, error, failure: 'error' as const }));
}

/** The rows still to mail: the audience was frozen earlier, and whoever unsubscribed, bounced or complained since is skipped. */
export function activeOnly(batch: Claimed[], outcomes: Outcome[]): Claimed[] {
  const ready: Claimed[] = [];
  for (const row of batch) {
    if (row.status === 'active') ready.push(row);
    else outcomes.push({ id: row.id, state: 'skipped', error: `Subscriber is ${row.status}` });
  }
  return ready;
}

/** The message for one recipient, or (none, and a `failed` outcome) when its template fails at render time. */
export function compose(
  campaign: PreparedCampaign,
  row: Claimed,
  outcomes: Outcome[],
): { row: Claimed; msg: OutgoingMessage }[] {
  try {
    const { message_id, ...subscriber } = row;
    return [{ row, msg: campaign.build({ ...subscriber, id: row.subscriber_id }, message_id) }];
  } catch (err) {
    outcomes.push({
      id: row.id,
      state: 'failed',
      error: `Template error: ${(err as Error).message}`,
      failure: 'error',
    });
    return [];
  }
}

/**
 * What the mail server's answer makes of the row, by the one classifier (feedback/smtpReply.ts): sent;
 * failed for good as bounced (hard), blocked (5.7.x) or rejected (any other 5xx); or queued again after
 * a backoff (4xx, no answer) until SEND_MAX_ATTEMPTS ran out, then failed as expired (a 4xx) or error
 * (never an answer). The reply is kept on the row.
 */
export function outcomeOf(
  config: Pick<Config, 'SEND_MAX_ATTEMPTS' | 'SEND_RETRY_BASE_MS'> & Partial<Pick<Config, 'SOFT_BOUNCE_LIMIT'>>,
  row: Claimed,
  res: SendResult,
): Outcome {
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
 * Writes outcomes, 'sending' marks and finished claims (one statement, `ledgerQueries.write`); when
 * outcomes include hard bounces or expired deferrals, their subscribers go through the bounce rules in
 * the same transaction. Returns how many outcomes were written and the rows marked (id → the attempt
 * their send is).
 */
export async function write(
  db: Db,
  workerId: string,
  w: Writes,
): Promise<{ written: number; marked: Map<number, number> }> {
  const { outcomes } = w;
  // the rows the bounce rules have to see: hard bounces, and expired deferrals that count as soft ones
  const softLimit = new Map<number, number>();
  for (const o of outcomes) {
    if (o.state !== 'failed') continue;
    if (o.failure === 'bounced') softLimit.set(o.id, 0);
    else if (o.failure === 'expired' && o.soft_bounce_limit) softLimit.set(o.id, o.soft_bounce_limit);
  }
  if (softLimit.size === 0) {
    const { n, marked } = await ledger.write(db, workerId, w);
    return { written: n, marked };
  }
  return inTransaction(db, async (trx) => {
    const { n, marked, followUps } = await ledger.write(trx, workerId, w);
    const byAccount = new Map<string, { hard: HardBounce[]; soft: HardBounce[]; limit: number }>();
    for (const f of followUps) {
      if (!softLimit.has(f.id)) continue;
      const acc = byAccount.get(f.account_id) ?? { hard: [], soft: [], limit: 0 };
      byAccount.set(f.account_id, acc);
      const bounce: HardBounce = {
        subscriberId: f.subscriber_id,
        email: f.email,
        row: {
          table: 'campaign_recipients',
          id: f.id,
          message_id: f.message_id,
          source: { campaign_id: f.campaign_id },
        },
        messageId: f.message_id,
        extra: { smtp_status: f.smtp_status },
      };
      if (f.failure === 'bounced') acc.hard.push(bounce);
      else {
        acc.soft.push(bounce);
        acc.limit = softLimit.get(f.id)!;
      }
    }
    for (const [accountId, a] of byAccount) await applyAtSend(trx, accountId, a.hard, a.soft, a.limit);
    return { written: n, marked };
  });
}

/** A row never handed to SMTP (shutdown): back to the queue for the next worker, its attempt not counted. */
export function released(row: Claimed): Outcome {
  return { id: row.id, state: 'queued', error: 'Released at shutdown', retry_in_ms: 0, release: true };
}

/** Whether the mail server's answer asks the recipient's whole provider to slow down (421, 4.7.x). */
export function isThrottled(res: SendResult): boolean {
  return !res.ok && res.code !== undefined && classify(parseReply(res.code, res.error)) === 'throttled';
}

/**
 * A message the provider throttled is tried again when the provider's backoff ends rather than after the
 * recipient's own retry delay (the other rows for the provider wait as long without an attempt).
 */
export function throttledOutcome(base: Outcome, until: Date): Outcome {
  return base.state === 'queued' ? { ...base, retry_in_ms: Math.max(1, until.getTime() - Date.now()) } : base;
}

/** A send that threw instead of answering (connection lost, …): worth another try. */
export function transient(err: unknown): SendResult {
  return { ok: false, permanent: false, error: String((err as Error)?.message ?? err) };
}
