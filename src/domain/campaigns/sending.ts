// The steps the campaign send workers run, at most once per recipient: rows are claimed as 'sending' and
// committed BEFORE any SMTP call; a row found in 'sending' whose worker is gone becomes 'interrupted' and
// is never sent again. Each step is one set-based statement per batch, never a query per recipient, and
// composing a message allocates only what that message needs (the lanes send 100k messages a run).
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { prepare, type PreparedCampaign } from '../../mail/campaignMessage.ts';
import type { OutgoingMessage, SendResult } from '../../mail/transport.ts';
import { recordEvent } from '../events/log.ts';
import { inTransaction } from '../transaction.ts';
import { heartbeat, interruptOrphans, links, markSentIfDone, type Claimed, type Outcome } from './ledgerQueries.ts';
import * as queries from './queries.ts';
import * as campaignStats from './stats.ts';

export type { PreparedCampaign } from '../../mail/campaignMessage.ts';
export type { Claimed, Outcome } from './ledgerQueries.ts';
export { claim, heartbeat, interruptOrphans, record, retireWorker, sendingCampaigns } from './ledgerQueries.ts';
export { campaignStatus } from './queries.ts';

/**
 * Keeps worker `me` among the live ones (its heartbeat) and marks 'interrupted' what dead workers left
 * mid-send (with `allButMe`, every other worker's rows). Returns how many rows were interrupted.
 */
export async function keepAlive(db: Db, me: string, opts: { leaseMs: number; allButMe?: boolean }): Promise<number> {
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
  return batch.map((r) => ({ id: r.id, state: 'failed' as const, error }));
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
    return [{ row, msg: campaign.build({ ...row, id: row.subscriber_id }) }];
  } catch (err) {
    outcomes.push({ id: row.id, state: 'failed', error: `Template error: ${(err as Error).message}` });
    return [];
  }
}

/** What the mail server's answer makes of the row: sent, failed for good, or queued again after a backoff. */
export function outcomeOf(
  config: Pick<Config, 'SEND_MAX_ATTEMPTS' | 'SEND_RETRY_BASE_MS'>,
  row: Claimed,
  res: SendResult,
): Outcome {
  if (res.ok) return { id: row.id, state: 'sent', message_id: res.messageId };
  const { SEND_MAX_ATTEMPTS: max, SEND_RETRY_BASE_MS: base } = config;
  const error = res.code ? `${res.code} ${res.error}`.slice(0, 1000) : res.error.slice(0, 1000);
  if (res.permanent || row.attempts >= Math.max(1, max)) return { id: row.id, state: 'failed', error };
  return { id: row.id, state: 'queued', error, retry_in_ms: Math.max(1, base * 2 ** (row.attempts - 1)) };
}

/** A row never handed to SMTP (shutdown): back to the queue for the next worker, its attempt not counted. */
export function released(row: Claimed): Outcome {
  return { id: row.id, state: 'queued', error: 'Released at shutdown', retry_in_ms: 0, release: true };
}

export function cancelled(row: Claimed): Outcome {
  return { id: row.id, state: 'skipped', error: 'Campaign was cancelled' };
}

/** A send that threw instead of answering (connection lost, …): worth another try. */
export function transient(err: unknown): SendResult {
  return { ok: false, permanent: false, error: String((err as Error)?.message ?? err) };
}
