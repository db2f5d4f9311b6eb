// Mail that comes home: what the inbound SMTP listener or the bounce mailbox took, applied to the exact
// email it is about. The envelope recipient is a VERP address (src/mail/verp.ts) whose signed token names
// the email — a campaign's ledger row, an automation email, a test send or a form confirmation — so a
// report is never matched by the address it claims to be about: whoever forges or replays one can at
// most speak for the email whose return path they hold, and the token's signature proves they got it
// from us. Reports go through the one rule (bounces.ts applyLate); mailto unsubscribes through the one
// unsubscribe (unsubscribe.ts). What cannot be attributed is kept, for a while, as unmatched mail for the
// operator to read. Every message ends as one inbound_mail row per recipient with its outcome and reason.
//
// Complaints that providers' feedback loops send to the one address registered with them
// (fbl@<return-path domain>) carry no token in the envelope: they are matched by the original message
// they quote — its Return-Path (our VERP address), the mailto token of its List-Unsubscribe, or the
// Message-ID recorded when it was sent — and every one of those that is there must verify and name the
// same email, or the report changes nothing. Mail from an account's own bounce mailbox (`onlyAccount`)
// can only affect that account's rows.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { InboundOutcome } from '../../db/schema/mail.ts';
import { readUnsubscribeToken } from '../../mail/unsubscribe.ts';
import { readVerpAddress, type ReadAddress, type VerpTarget } from '../../mail/verp.ts';
import { NotFound } from '../errors.ts';
import { offsetOf, pageOf, PageQuery, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import { applyLate } from './bounces.ts';
import * as repo from './inboundQueries.ts';
import { readMailReport, verdictOf, type QuotedMessage, type ReadReport } from './mailReports.ts';
import { unsubscribe } from './unsubscribe.ts';

/** the most of a message kept for the operator when it cannot be attributed */
const KEPT_BYTES = 256 * 1024;
/** envelope recipients looked at per message: a report has one */
export const MAX_RECIPIENTS = 10;
export const UNMATCHED_DAYS = 14;
/** beyond this many unmatched messages kept, new ones keep their envelope and reason but not their text */
export const MAX_UNMATCHED_KEPT = 10_000;
export const KEPT_DAYS = 90;

export interface Arrival {
  via: 'smtp' | 'imap';
  /** the envelope sender; '' for the null sender (<>) that reports use */
  mailFrom: string;
  /** the envelope recipients (for a mailbox: the addresses the message was delivered to) */
  rcptTo: string[];
  raw: Buffer;
  /** taken from this account's own bounce mailbox: it may only affect this account's rows */
  onlyAccount?: string;
}

export interface Handled {
  rcpt: string;
  outcome: InboundOutcome;
  reason: string | null;
  accountId: string | null;
}

type Settings = Pick<Config, 'secret' | 'SOFT_BOUNCE_LIMIT' | 'UNSUBSCRIBE_MAILTO' | 'BOUNCE_DOMAIN'>;

/** The local part of the feedback-loop address: fbl@<BOUNCE_DOMAIN>, or fbl@bounces.<an account's domain>. */
export const FBL_LOCAL_PART = 'fbl';

/** Whether an address is the feedback-loop address at one of the return-path domains. */
export function isFeedbackLoopAddress(config: Pick<Config, 'BOUNCE_DOMAIN'>, address: string): boolean {
  const a = address.toLowerCase();
  const at = a.lastIndexOf('@');
  if (a.slice(0, at) !== FBL_LOCAL_PART) return false;
  const domain = a.slice(at + 1);
  // an account's return-path host is bounces.<its sending domain>, a CNAME to BOUNCE_DOMAIN
  return !!config.BOUNCE_DOMAIN && (domain === config.BOUNCE_DOMAIN.toLowerCase() || domain.startsWith('bounces.'));
}

/**
 * Whether the listener takes mail for this envelope recipient: our VERP addresses, the feedback-loop
 * address and the unsubscribe one.
 */
export function acceptsRecipient(
  config: Pick<Config, 'secret' | 'UNSUBSCRIBE_MAILTO' | 'BOUNCE_DOMAIN'>,
  address: string,
): boolean {
  if (address.length > 320) return false;
  if (readVerpAddress(config.secret, address)) return true;
  if (isFeedbackLoopAddress(config, address)) return true;
  return !!config.UNSUBSCRIBE_MAILTO && address.toLowerCase() === config.UNSUBSCRIBE_MAILTO.toLowerCase();
}

/**
 * Takes one message: each distinct recipient (at most MAX_RECIPIENTS) handled and recorded on its own.
 * Never throws for what the message says; only a database failure does (the listener then answers 451
 * and the sender retries).
 */
export async function receive(db: Db, config: Settings, arrival: Arrival): Promise<Handled[]> {
  const read = await readMailReport(arrival.raw);
  const rcpts = [...new Set(arrival.rcptTo.map((r) => r.toLowerCase()))].slice(0, MAX_RECIPIENTS);
  const handled: Handled[] = [];
  let roomForText: boolean | undefined;
  for (const rcpt of rcpts) {
    const h = await handleOne(db, config, arrival, read, rcpt);
    // a flood of forged mail must not fill the disk: its text is kept only while there is room
    if (!h.accountId) roomForText ??= (await repo.unmatchedCount(db)) < MAX_UNMATCHED_KEPT;
    await repo.insertInbound(db, {
      account_id: h.accountId,
      via: arrival.via,
      outcome: h.outcome,
      reason: h.reason && clean(h.reason, 1000),
      // what is kept of attributed mail is its outcome; unattributed mail is kept whole for the operator
      mail_from: h.accountId ? null : clean(arrival.mailFrom, 320),
      rcpt_to: clean(rcpt, 320),
      subject: h.accountId ? null : read.subject && clean(read.subject, 500),
      size: arrival.raw.length,
      raw: h.accountId || !roomForText ? null : arrival.raw.subarray(0, KEPT_BYTES),
    });
    handled.push(h);
  }
  return handled;
}

async function handleOne(db: Db, config: Settings, arrival: Arrival, read: ReadReport, rcpt: string): Promise<Handled> {
  const result = (outcome: InboundOutcome, reason: string | null, accountId: string | null = null): Handled => ({
    rcpt,
    outcome,
    reason,
    accountId,
  });
  const address = readVerpAddress(config.secret, rcpt);
  if (!address) {
    if (config.UNSUBSCRIBE_MAILTO && rcpt === config.UNSUBSCRIBE_MAILTO.toLowerCase())
      return legacyUnsubscribe(db, config, { arrival, read, rcpt });
    if (isFeedbackLoopAddress(config, rcpt)) return feedbackLoop(db, config, { arrival, read, rcpt });
    return result('unmatched', 'not a return-path or unsubscribe address');
  }
  if ('invalid' in address) return result('unmatched', `${address.purpose} address: ${address.invalid}`);
  const email = await namedEmail(db, address.target);
  if (!email) return result('unmatched', `the ${address.target.kind} email this address names no longer exists`);
  if (foreign(arrival, email.kind === 'email' ? email.email.account_id : email.accountId))
    return result('unmatched', FOREIGN);
  if (email.kind !== 'email') {
    const verdict = verdictOf(read.report, { email: '', messageId: null });
    const said = 'reason' in verdict ? verdict.reason : `${verdict.effect} ${verdict.status ?? ''}`.trim();
    return result('ignored', `about a ${email.kind} email, recorded only: ${said}`, email.accountId);
  }
  const e = email.email;
  if (address.purpose === 'unsubscribe') {
    // automatic mail (a report, an out-of-office) to an unsubscribe address is nobody asking to leave
    if (read.report.type !== 'message')
      return result('ignored', `automatic mail to an unsubscribe address (${read.report.type})`, e.account_id);
    const done = await unsubscribe(
      db,
      {
        account_id: e.account_id,
        subscriber_id: e.subscriber_id,
        ...(e.table === 'campaign_recipients'
          ? { campaign_id: e.source.campaign_id }
          : { automation_id: e.source.automation_id }),
      },
      'unsubscribe_mail',
    ).catch(() => undefined);
    if (!done) return result('ignored', 'the subscriber no longer exists', e.account_id);
    return result(
      done.changed ? 'unsubscribed' : 'ignored',
      done.changed ? null : 'already unsubscribed',
      e.account_id,
    );
  }
  return applyReport(db, config, read, e, rcpt);
}

/** A report about one sent email, through the one rule (bounces.ts applyLate). */
async function applyReport(
  db: Db,
  config: Settings,
  read: ReadReport,
  e: repo.NamedEmail,
  rcpt: string,
): Promise<Handled> {
  const result = (outcome: InboundOutcome, reason: string | null): Handled => ({
    rcpt,
    outcome,
    reason,
    accountId: e.account_id,
  });
  const verdict = verdictOf(read.report, { email: e.email, messageId: e.message_id });
  if ('reason' in verdict) return result(verdict.effect, verdict.reason);
  const { duplicate } = await applyLate(db, e.account_id, e, verdict, { softBounceLimit: config.SOFT_BOUNCE_LIMIT });
  const said = [verdict.status, verdict.detail].filter(Boolean).join(' ') || null;
  return duplicate
    ? result('ignored', `a repeated ${verdict.effect} report for the same email`)
    : result(verdict.effect, said && clean(said, 1000));
}

/** One message for one of its recipients, as read. */
interface Incoming {
  arrival: Arrival;
  read: ReadReport;
  rcpt: string;
}

const FOREIGN = "another account's address, in an account's own bounce mailbox";

/** Mail from an account's own mailbox that names another account's email. */
function foreign(arrival: Arrival, accountId: string): boolean {
  return arrival.onlyAccount !== undefined && accountId !== arrival.onlyAccount;
}

/**
 * A report to the feedback-loop address: matched by the original message it quotes. Each way the
 * original names an email (its Return-Path, its List-Unsubscribe mailto, its Message-ID) that is there
 * must lead to the same one; a token that does not verify, or two that disagree, and nothing changes.
 */
async function feedbackLoop(db: Db, config: Settings, { arrival, read, rcpt }: Incoming): Promise<Handled> {
  const unmatched = (reason: string): Handled => ({ rcpt, outcome: 'unmatched', reason, accountId: null });
  const report = read.report;
  if (report.type !== 'complaint' && report.type !== 'dsn')
    return unmatched(`not a feedback report (${report.type}) at the feedback-loop address`);
  const original = report.original;
  if (!original) return unmatched('a report at the feedback-loop address without the original message');
  const found = await originalEmail(db, config.secret, original);
  if ('why' in found) return unmatched(found.why);
  if (foreign(arrival, found.email.account_id)) return unmatched(FOREIGN);
  return applyReport(db, config, read, found.email, rcpt);
}

async function originalEmail(
  db: Db,
  secret: string,
  original: QuotedMessage,
): Promise<{ email: repo.NamedEmail } | { why: string }> {
  const named: { by: string; email: repo.NamedEmail | undefined }[] = [];
  const tokens: [string, ReadAddress][] = [
    ['Return-Path', original.returnPath ? readVerpAddress(secret, original.returnPath) : undefined],
    ['List-Unsubscribe', original.unsubscribeMailto ? readVerpAddress(secret, original.unsubscribeMailto) : undefined],
  ];
  for (const [by, address] of tokens) {
    if (!address) continue;
    if ('invalid' in address) return { why: `the quoted ${by} ${address.invalid}` };
    const email = await namedEmail(db, address.target);
    if (!email || email.kind !== 'email')
      return { why: `the quoted ${by} names no email that can be complained about` };
    named.push({ by, email: email.email });
  }
  if (original.messageId) {
    const email = await repo.emailByMessageId(db, original.messageId);
    if (email || named.length === 0) named.push({ by: 'Message-ID', email });
  }
  if (named.length === 0) return { why: 'the quoted message names no email of ours' };
  const first = named[0]!.email;
  if (!first) return { why: 'the quoted Message-ID is not one of our emails' };
  if (named.some((n) => !n.email || n.email.table !== first.table || n.email.id !== first.id))
    return { why: `the quoted ${named.map((n) => n.by).join(', ')} name different emails` };
  return { email: first };
}

type Named = { kind: 'email'; email: repo.NamedEmail } | { kind: 'test' | 'confirmation'; accountId: string };

async function namedEmail(db: Db, t: VerpTarget): Promise<Named | undefined> {
  switch (t.kind) {
    case 'campaign': {
      const email = await repo.campaignEmail(db, t.rowId);
      return email && { kind: 'email', email };
    }
    case 'automation': {
      const email = await repo.automationEmail(db, t.emailId);
      return email && { kind: 'email', email };
    }
    case 'test':
      return (await repo.accountExists(db, t.accountId)) ? { kind: 'test', accountId: t.accountId } : undefined;
    case 'confirmation': {
      const accountId = await repo.signupAccount(db, t.signupId);
      return accountId ? { kind: 'confirmation', accountId } : undefined;
    }
  }
}

/** UNSUBSCRIBE_MAILTO: the subject carries the signed token of the https link ("unsubscribe <token>"). */
async function legacyUnsubscribe(db: Db, config: Settings, { arrival, read, rcpt }: Incoming): Promise<Handled> {
  const token = /([A-Za-z0-9_-]{16,200})\s*$/.exec(read.subject ?? '')?.[1];
  const t = token ? readUnsubscribeToken(config.secret, token) : undefined;
  if (!t) return { rcpt, outcome: 'unmatched', reason: 'no valid unsubscribe token in the subject', accountId: null };
  if (foreign(arrival, t.account_id)) return { rcpt, outcome: 'unmatched', reason: FOREIGN, accountId: null };
  if (read.report.type !== 'message')
    return { rcpt, outcome: 'ignored', reason: 'automatic mail to the unsubscribe address', accountId: t.account_id };
  const done = await unsubscribe(db, t, 'unsubscribe_mail').catch(() => undefined);
  return {
    rcpt,
    outcome: done?.changed ? 'unsubscribed' : 'ignored',
    reason: done ? (done.changed ? null : 'already unsubscribed') : 'the subscriber no longer exists',
    accountId: t.account_id,
  };
}

/** Text fit to store: no NUL or other control characters but tab, no lone surrogates, bounded. */
export function clean(s: string, max: number): string {
  return s
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .slice(0, max);
}

/** Deletes unmatched mail after UNMATCHED_DAYS and the record of the rest after KEPT_DAYS. */
export function purge(db: Db): Promise<number> {
  return repo.purgeInbound(db, UNMATCHED_DAYS, KEPT_DAYS);
}

// ---- what the operator and the dashboard read

export const UnmatchedQuery = PageQuery;

export async function listUnmatched(
  db: Db,
  query: unknown,
): Promise<Page<Awaited<ReturnType<typeof repo.listUnmatched>>[number]>> {
  const q = parseInput(UnmatchedQuery, query);
  const [items, total] = await Promise.all([repo.listUnmatched(db, q.per_page, offsetOf(q)), repo.unmatchedCount(db)]);
  return pageOf(items, q, total);
}

/** One unmatched message as it arrived (at most its first 256 KB). */
export async function unmatchedMessage(db: Db, id: string): Promise<Buffer> {
  const raw = await repo.unmatchedRaw(db, id);
  if (!raw) throw new NotFound('Message not found');
  return raw;
}

/** The account's side of the bounce setup: what came home in the last 30 days, and when the last did. */
export async function accountSummary(db: Db, accountId: string) {
  const rows = await repo.accountSummary(db, accountId);
  const last = rows.reduce<Date | null>((m, r) => (r.last && (!m || r.last > m) ? r.last : m), null);
  return {
    last_received_at: last,
    last_30_days: Object.fromEntries(rows.map((r) => [r.outcome, r.count])),
    unmatched: await repo.unmatchedCount(db),
  };
}

/** A campaign's late bounces and complaints (the report's list), newest first, at most 500. */
export function campaignFeedback(db: Db, accountId: string, campaignId: string) {
  return repo.campaignFeedback(db, accountId, campaignId, 500);
}
