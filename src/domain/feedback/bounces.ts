// Applying bounce and complaint reports to an account: a hard bounce makes the subscriber
// `bounced` (subscriber.bounced + email.bounced), a complaint `complained` (subscriber.complained), a soft
// bounce is only counted; each lands on the row of the email it is about — a campaign's ledger row or an
// automation email (automation_emails) — so campaign and automation stats include it, and the
// events name where the email came from: {campaign_id} or {automation_id, step, run_id}.
// Providers retry their webhooks: a repeated report changes nothing and writes no second event.
import type { Db } from '../../db/client.ts';
import type { SubscriberRow } from '../../db/schema.ts';
import { NotFound } from '../errors.ts';
import { recordEvents, type EventInput } from '../events/log.ts';
import { publicView } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import type { BounceReport, Provider } from './bounceFormats.ts';
import * as queries from './queries.ts';

export interface Outcome {
  received: number;
  hard: number;
  soft: number;
  complaints: number;
  /** addresses that are not subscribers of this account */
  unknown: number;
}

/** The account a bounce-hook URL secret belongs to; NotFound (the route answers 404) otherwise. */
export async function accountForSecret(db: Db, secret: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(secret)) throw new NotFound('Not found');
  const id = await queries.accountByBounceSecret(db, secret);
  if (!id) throw new NotFound('Not found');
  return id;
}

export async function recordConfirmation(
  db: Db,
  accountId: string,
  provider: Provider,
  c: { subscribe_url: string; topic_arn?: string },
): Promise<void> {
  await queries.insertConfirmation(db, accountId, provider, c);
}

export async function apply(db: Db, accountId: string, provider: Provider, reports: BounceReport[]): Promise<Outcome> {
  const outcome: Outcome = { received: reports.length, hard: 0, soft: 0, complaints: 0, unknown: 0 };
  if (reports.length === 0) return outcome;
  await inTransaction(db, async (trx) => {
    const events: EventInput[] = [];
    for (const r of reports) {
      const sub = await queries.lockSubscriberByEmail(trx, accountId, r.email);
      if (!sub) {
        outcome.unknown++;
        continue;
      }
      const row = await sentEmail(trx, accountId, sub.id, r.message_id);
      if (r.kind === 'soft') {
        outcome.soft++;
        if (row) await queries.countSoftBounce(trx, row);
        continue;
      }
      const hard = r.kind === 'hard';
      hard ? outcome.hard++ : outcome.complaints++;
      const firstOnRow = row ? await queries.markOnce(trx, row, hard ? 'bounced_at' : 'complained_at') : false;
      const after = await changeStatus(trx, sub, hard ? 'bounced' : 'complained');
      // without a matching email the events keep saying campaign_id: null, as they always did
      const origin = { ...(row?.source ?? { campaign_id: null }), provider, detail: r.detail ?? null };
      if (after)
        events.push({
          type: hard ? 'subscriber.bounced' : 'subscriber.complained',
          subscriberId: sub.id,
          data: { subscriber: publicView(after), ...origin },
        });
      if (hard && (firstOnRow || (!row && after))) {
        events.push({
          type: 'email.bounced',
          subscriberId: sub.id,
          data: {
            ...origin,
            subscriber: { id: sub.id, email: sub.email },
            message_id: row?.message_id ?? r.message_id ?? null,
            type: 'hard',
          },
        });
      }
    }
    await recordEvents(trx, accountId, events);
  });
  return outcome;
}

/** The email a report is about: its row, and the source its events name. */
type SentEmail =
  | { table: 'campaign_recipients'; id: number; message_id: string | null; source: { campaign_id: string } }
  | {
      table: 'automation_emails';
      id: string;
      message_id: string | null;
      source: { automation_id: string; step: string; run_id: string };
    };

/**
 * By our Message-ID when the report carries it: a campaign's ledger row or an automation email (both ids
 * are random UUIDs, so at most one matches). Without one, or when it names neither, the latest campaign
 * email sent to the subscriber, as before automation emails were accounted for.
 */
async function sentEmail(
  trx: Db,
  accountId: string,
  subscriberId: string,
  messageId?: string,
): Promise<SentEmail | undefined> {
  const campaignEmail = (r: { id: number; campaign_id: string; message_id: string | null }): SentEmail => ({
    table: 'campaign_recipients',
    id: r.id,
    message_id: r.message_id,
    source: { campaign_id: r.campaign_id },
  });
  if (messageId) {
    const c = await queries.campaignEmailById(trx, accountId, subscriberId, messageId);
    if (c) return campaignEmail(c);
    const a = await queries.automationEmailById(trx, accountId, subscriberId, messageId);
    if (a)
      return {
        table: 'automation_emails',
        id: a.id,
        message_id: a.message_id,
        source: { automation_id: a.automation_id, step: a.step, run_id: a.run_id },
      };
  }
  const latest = await queries.latestCampaignEmail(trx, accountId, subscriberId);
  return latest && campaignEmail(latest);
}

/** bounced: from active or unsubscribed; complained: from anything. Undefined when nothing changed. */
async function changeStatus(
  trx: Db,
  sub: SubscriberRow,
  to: 'bounced' | 'complained',
): Promise<SubscriberRow | undefined> {
  if (sub.status === to || (to === 'bounced' && sub.status === 'complained')) return undefined;
  return queries.setStatus(trx, sub.id, to);
}
