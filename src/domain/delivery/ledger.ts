// The steps the campaign send lanes (sender.ts) run on the ledger, at most once per recipient: a worker
// claims a batch (one row of send_claims, the ledger rows untouched), and each row becomes 'sending',
// committed, just BEFORE its SMTP call; a row found in 'sending' whose worker is gone becomes 'interrupted'
// and is never sent again, the rest of such a worker's claim goes back to the queue. Each step is one
// set-based statement per batch or group, never a query per recipient, and composing a message allocates
// only what that message needs (the lanes send 100k messages a run).
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { mailFromAddress, resolveSender } from '../../mail/headers.ts';
import type { OutgoingMessage } from '../../mail/transport.ts';
import { links } from '../campaigns/ledgerQueries.ts';
import { variantCampaign } from '../campaigns/abTests.ts';
import * as campaigns from '../campaigns/queries.ts';
import * as campaignStats from '../campaigns/stats.ts';
import { recordEvent } from '../events/log.ts';
import { applyAtSend, type HardBounce } from '../feedback/bounces.ts';
import { returnPathDomainFor } from '../feedback/returnPath.ts';
import { inTransaction } from '../transaction.ts';
import * as ledger from './ledgerQueries.ts';
import {
  heartbeat,
  interruptOrphans,
  markSentIfDone,
  type Claimed,
  type Outcome,
  type Writes,
} from './ledgerQueries.ts';
import { senderIdentity } from '../sending/identity.ts';
import { fromAddressOf, prepareCampaign as prepareMessages, type PreparedCampaign } from './message.ts';
import { bounceOf, renderFailed } from './outcome.ts';

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
  const c = await campaigns.campaignById(db, campaignId);
  const account = await campaigns.account(db, c.account_id);
  // the sending domain's key is looked up (and its private half opened) once per send, not per message
  const from = fromAddressOf(config, c, account);
  const identity = await senderIdentity(db, config, c.account_id, from);
  const returnPath = await returnPathDomainFor(db, config, c.account_id, from, identity);
  const stored = await links(db, campaignId);
  const prepared = prepareMessages(config, c, account, stored, identity, returnPath);
  if (!c.ab_test) return prepared;
  const variants = c.ab_test.variants.map((_, i) =>
    prepareMessages(config, variantCampaign(c, i), account, stored, identity, returnPath),
  );
  return { ...prepared, build: prepared.build, variants };
}

/** A batch whose campaign could not be prepared: a template that compiled when saved should not fail here; if it does, nobody gets a broken mail. */
export function failAll(batch: Claimed[], err: unknown): Outcome[] {
  return batch.map((r) => renderFailed(r.id, err));
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
    const { message_id, variant, ...subscriber } = row;
    const sent = (variant != null && campaign.variants?.[variant]) || campaign;
    return [{ row, msg: sent.build({ ...subscriber, id: row.subscriber_id }, message_id, row.id) }];
  } catch (err) {
    outcomes.push(renderFailed(row.id, err));
    return [];
  }
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
    const bounce = bounceOf(o);
    if (bounce) softLimit.set(o.id, bounce.kind === 'hard' ? 0 : bounce.limit);
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
