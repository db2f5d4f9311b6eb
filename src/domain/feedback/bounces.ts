// Applying bounce and complaint reports to an account: a hard bounce makes the subscriber
// `bounced` (subscriber.bounced + email.bounced), a complaint `complained` (subscriber.complained), a soft
// bounce is counted (and SOFT_BOUNCE_LIMIT of them in a row are a hard bounce); each lands on the row of the email it is about — a campaign's ledger row or an
// automation email (automation_emails) — so campaign and automation stats include it, and the
// events name where the email came from: {campaign_id} or {automation_id, step, run_id}.
// Providers retry their webhooks: a repeated report changes nothing and writes no second event.
import type { Db } from '../../db/client.ts';
import type { SubscriberRow } from '../../db/schema.ts';
import { NotFound } from '../errors.ts';
import { recordEvents, type EventInput } from '../events/log.ts';
import { publicView } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import type { LateFeedback } from '../../db/schema/campaigns.ts';
import type { ReplyClass } from '../../mail/smtpReply.ts';
import type { BounceReport, Provider } from './bounceFormats.ts';
import * as bounceQueries from './bounceQueries.ts';
import * as lateQueries from './lateQueries.ts';
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

/**
 * Applies providers' reports. Where a report quotes the SMTP reply, its kind was already judged by the one
 * classifier (bounceFormats.ts). A soft bounce counts on its email's row and toward the subscriber's
 * `softBounceLimit` in a row (0: never), after which it is a hard bounce like any other.
 */
export async function apply(
  db: Db,
  accountId: string,
  provider: Provider,
  reports: BounceReport[],
  opts: { softBounceLimit: number },
): Promise<Outcome> {
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
      if (r.kind === 'soft') outcome.soft++;
      else if (r.kind === 'hard') outcome.hard++;
      else outcome.complaints++;
      events.push(
        ...(await applyOne(trx, accountId, sub, row, r, { provider, detail: r.detail ?? null }, opts.softBounceLimit)),
      );
    }
    await recordEvents(trx, accountId, events);
  });
  return outcome;
}

/**
 * One report about one subscriber (and the email it is about, when known) by the one rule: hard →
 * bounced; soft → counted on the email's row and, unless a policy refusal, toward the streak; complaint →
 * `complained`. Returns the events to record.
 */
async function applyOne(
  trx: Db,
  accountId: string,
  sub: SubscriberRow,
  row: SentEmail | undefined,
  r: Pick<BounceReport, 'kind' | 'reply_class' | 'message_id'>,
  extra: Record<string, unknown>,
  softBounceLimit: number,
): Promise<EventInput[]> {
  const bounce: HardBounce = {
    subscriberId: sub.id,
    email: sub.email,
    row,
    messageId: r.message_id ?? row?.message_id ?? null,
    extra,
  };
  if (r.kind === 'soft') {
    if (row) await queries.countSoftBounce(trx, row);
    // a policy refusal says nothing about the mailbox: it does not count toward a bounce
    if (r.reply_class === 'blocked') return [];
    return softBounces(trx, accountId, [bounce], softBounceLimit);
  }
  if (r.kind === 'hard') return hardBounces(trx, accountId, [bounce]);
  if (row) await queries.markOnce(trx, row, 'complained_at');
  const after = await changeStatus(trx, sub, 'complained');
  // without a matching email the events keep saying campaign_id: null, as they always did
  const origin = { ...(row?.source ?? { campaign_id: null }), ...extra };
  return after
    ? [{ type: 'subscriber.complained', subscriberId: sub.id, data: { subscriber: publicView(after), ...origin } }]
    : [];
}

/** A report that came home by mail to one email's return path (inbound.ts), as mailReports.ts judged it. */
export interface LateReport {
  effect: LateFeedback;
  status: string | null;
  detail: string | null;
  replyClass?: ReplyClass;
}

/**
 * A late report applied to the exact email it is about (and its subscriber), by the same rule as the
 * providers' reports: bounced → a hard bounce, soft_bounced → a soft one, blocked → counted on the row
 * only, complained → `complained` (suppressed); delayed is a warning and changes nothing but the row.
 * The row keeps what the report said (status code and diagnostic). A report of the same kind again for
 * the same email (a relay retrying, a replay) changes nothing: `duplicate`.
 */
export async function applyLate(
  db: Db,
  accountId: string,
  email: SentEmail & { subscriber_id: string },
  report: LateReport,
  opts: { softBounceLimit: number },
): Promise<{ duplicate: boolean }> {
  return inTransaction(db, async (trx) => {
    const sub = await queries.lockSubscriber(trx, accountId, email.subscriber_id);
    if (!sub) return { duplicate: true };
    const before = await lateQueries.lockFeedback(trx, email);
    if (before === report.effect) return { duplicate: true };
    const { subscriber_id: _, ...row } = email;
    await lateQueries.recordFeedback(trx, row, {
      feedback: report.effect,
      status: report.status,
      detail: report.detail,
    });
    if (report.effect === 'delayed') return { duplicate: false };
    const kind = report.effect === 'bounced' ? 'hard' : report.effect === 'complained' ? 'complaint' : 'soft';
    const extra = { provider: 'mail', detail: report.detail, status: report.status };
    const events = await applyOne(
      trx,
      accountId,
      sub,
      row,
      { kind, reply_class: report.effect === 'blocked' ? 'blocked' : report.replyClass },
      extra,
      opts.softBounceLimit,
    );
    await recordEvents(trx, accountId, events);
    return { duplicate: false };
  });
}

/** A hard bounce of one email, or of a subscriber when no email of ours matches the report. */
export interface HardBounce {
  subscriberId: string;
  /** the address the email went to, as the events name it */
  email: string;
  row?: SentEmail;
  messageId: string | null;
  /** what the events add to the email's source: a report's provider and detail, the SMTP status */
  extra: Record<string, unknown>;
}

/**
 * The one bounce rule, for the bounce hooks and the send workers alike, set-based: each email's row gets
 * bounced_at (so stats count it), each subscriber becomes `bounced` (from active or unsubscribed), and
 * the events to record are returned: subscriber.bounced when the status changed, email.bounced once per
 * email (or, without an email, when the status changed). Repeated reports change nothing.
 */
export async function hardBounces(trx: Db, accountId: string, items: HardBounce[]): Promise<EventInput[]> {
  if (items.length === 0) return [];
  const rowsOf = <T extends SentEmail['table']>(table: T) =>
    items.flatMap((i) => (i.row?.table === table ? [i.row.id as Extract<SentEmail, { table: T }>['id']] : []));
  const first = await bounceQueries.markBounced(
    trx,
    accountId,
    rowsOf('campaign_recipients'),
    rowsOf('automation_emails'),
  );
  const changed = new Map(
    (await bounceQueries.bounceSubscribers(trx, accountId, [...new Set(items.map((i) => i.subscriberId))])).map((s) => [
      s.id,
      s,
    ]),
  );
  const events: EventInput[] = [];
  for (const i of items) {
    const origin = { ...(i.row?.source ?? { campaign_id: null }), ...i.extra };
    const after = changed.get(i.subscriberId);
    changed.delete(i.subscriberId);
    if (after)
      events.push({
        type: 'subscriber.bounced',
        subscriberId: i.subscriberId,
        data: { subscriber: publicView(after), ...origin },
      });
    const firstOnRow =
      i.row?.table === 'campaign_recipients'
        ? first.campaign.has(i.row.id)
        : i.row?.table === 'automation_emails'
          ? first.automation.has(i.row.id)
          : false;
    if (firstOnRow || (!i.row && after))
      events.push({
        type: 'email.bounced',
        subscriberId: i.subscriberId,
        data: {
          ...origin,
          subscriber: { id: i.subscriberId, email: i.email },
          message_id: i.row?.message_id ?? i.messageId,
          type: 'hard',
        },
      });
  }
  return events;
}

/** Soft bounces counted per subscriber; whoever reaches `limit` in a row (0: never) is bounced from here. */
export async function softBounces(
  trx: Db,
  accountId: string,
  items: HardBounce[],
  limit: number,
): Promise<EventInput[]> {
  if (limit <= 0 || items.length === 0) return [];
  const ids = [...new Set(items.map((i) => i.subscriberId))];
  const reached = new Set(await bounceQueries.countSoftStreaks(trx, accountId, ids, limit));
  return hardBounces(
    trx,
    accountId,
    items.filter((i) => reached.has(i.subscriberId)),
  );
}

/**
 * What the mail server said at send time, applied by the same rules: `hard` are bounced, `soft` (temporary
 * refusals until the attempts ran out) count toward `softBounceLimit` in a row. Records the events.
 */
export async function applyAtSend(
  trx: Db,
  accountId: string,
  hard: HardBounce[],
  soft: HardBounce[],
  softBounceLimit: number,
): Promise<void> {
  const events = [
    ...(await hardBounces(trx, accountId, hard)),
    ...(await softBounces(trx, accountId, soft, softBounceLimit)),
  ];
  await recordEvents(trx, accountId, events);
}

/** The email a report is about: its row, and the source its events name. */
export type SentEmail =
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

/** complained: from anything. Undefined when nothing changed. */
async function changeStatus(trx: Db, sub: SubscriberRow, to: 'complained'): Promise<SubscriberRow | undefined> {
  if (sub.status === to) return undefined;
  return queries.setStatus(trx, sub.id, to);
}
