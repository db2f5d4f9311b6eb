// Warm-up of a sending domain. A new domain that suddenly sends thousands of messages looks like a spammer
// to mailbox providers, so an account can give a domain a plan: day 1 allows first_day_cap campaign
// messages, each later day `growth` times the day before, and after `days` days there is no cap. This file
// holds the plans and the days' caps; the send lanes apply the cap before each batch (delivery/warmup.ts):
// what it holds back stays queued in the ledger and goes out when the domain's next day starts (midnight
// in the account's time zone). Everything it needs is in the database, so a restart changes nothing.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { mailFromAddress } from '../../mail/headers.ts';
import { Conflict, NotFound } from '../errors.ts';
import { int4, isCalendarDate, parseInput } from '../validation.ts';
import * as q from './warmupQueries.ts';

export const NOT_FOUND = 'Warm-up plan not found';
const DAY_MS = 86_400_000;
/** A cap beyond what the usage counter (an int) holds means "no cap" in practice. */
export const CAP_CEILING = 2_000_000_000;

/** How the days of a plan are counted: real calendar days unless a test speeds time up. */
export type Clock = Pick<Config, 'WARMUP_TIME_SCALE'> & { now?: () => Date };

export type Plan = Pick<q.PlanRow, 'first_day_cap' | 'growth' | 'days' | 'start_date' | 'created_at'>;

/** The cap of the plan's `day` (1 = its first day), or null when the warm-up is over and nothing is capped. */
export function capOn(plan: Pick<Plan, 'first_day_cap' | 'growth' | 'days'>, day: number): number | null {
  if (day > plan.days) return null;
  // before its start date a plan already holds the domain to its first day's cap
  const exponent = Math.max(0, day - 1);
  return Math.min(CAP_CEILING, Math.floor(plan.first_day_cap * plan.growth ** exponent));
}

export interface PlanDay {
  /** 1 on the plan's first day; 0 or less before its start date */
  index: number;
  /** the usage counter's key, YYYY-MM-DD */
  key: string;
  /** when this day ends and the next one's cap applies */
  ends_at: Date;
}

/**
 * Which day of the plan `now` falls on. Days are calendar days in the account's time zone (UTC when the
 * zone is unknown). With WARMUP_TIME_SCALE above 1, a test-only knob, a day lasts 24 h / scale and days
 * count from the plan's creation instead, so a test's first day is never cut short by the hour it runs at.
 */
export function dayOf(plan: Plan, timezone: string, clock: Clock): PlanDay {
  const now = clock.now?.() ?? new Date();
  const scale = clock.WARMUP_TIME_SCALE;
  if (scale !== 1) {
    const length = DAY_MS / scale;
    const index = Math.floor((now.getTime() - plan.created_at.getTime()) / length) + 1;
    return {
      index,
      key: addDays(plan.start_date, index - 1),
      ends_at: new Date(plan.created_at.getTime() + index * length),
    };
  }
  const zone = knownZone(timezone);
  const today = localDate(zone, now);
  const tomorrow = addDays(today, 1);
  return { index: daysBetween(plan.start_date, today) + 1, key: today, ends_at: midnight(zone, tomorrow) };
}

/** How far the domain's warm-up is today: its cap (null: none any more), what was claimed, when it resets. */
export interface Today {
  day: number;
  cap: number | null;
  used: number;
  resets_at: string;
}

async function today(db: Db, accountId: string, plan: q.PlanRow, timezone: string, clock: Clock): Promise<Today> {
  const d = dayOf(plan, timezone, clock);
  const used = (await q.usage(db, accountId, plan.domain, [d.key])).get(d.key) ?? 0;
  return { day: d.index, cap: capOn(plan, d.index), used, resets_at: d.ends_at.toISOString() };
}

/** What the REST campaign and the dashboard's progress show while a warm-up holds part of a send back. */
export interface CampaignWarmup {
  domain: string;
  /** queued recipients that today's remaining cap does not cover */
  waiting: number;
  /** when the next day's cap applies */
  resumes_at: string;
  today: Today;
}

/**
 * The warm-up state of a sending campaign, or null when no plan holds any of its recipients back (not
 * sending, no plan for its domain, or today's remaining cap covers everyone still queued). The remaining
 * cap is shared by the domain's campaigns, so `waiting` is this campaign's view of it. Between a send lane's
 * reservation of the cap and its claim of the rows (two statements) the rows it reserved count as used and
 * still as queued, so for that moment `waiting` reads high by up to a batch.
 */
export async function ofCampaign(
  db: Db,
  config: Clock & Pick<Config, 'MAIL_FROM'>,
  accountId: string,
  campaignId: string,
): Promise<CampaignWarmup | null> {
  const found = await q.planOfCampaign(db, accountId, campaignId, mailFromAddress(config.MAIL_FROM));
  if (!found?.plan || found.status !== 'sending') return null;
  const t = await today(db, accountId, found.plan, found.timezone, config);
  if (t.cap === null) return null;
  const queued = await q.queuedCount(db, accountId, campaignId);
  const waiting = Math.max(0, queued - Math.max(0, t.cap - t.used));
  if (waiting === 0) return null;
  return { domain: found.plan.domain, waiting, resumes_at: t.resets_at, today: t };
}

// a host name as DNS allows it (labels of letters, digits and inner hyphens), which is what a From address's
// domain is; a leading "@" is forgiven since people copy it from the address
const Domain = z
  .string({ error: 'Domain is required' })
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/^@/, ''))
  .pipe(
    z
      .string()
      .max(253, 'Domain must be at most 253 characters')
      .regex(
        /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/,
        'Domain must be a domain name such as mail.example.com',
      ),
  );

export const NewPlan = z.object({
  domain: Domain,
  start_date: z.string().refine(isCalendarDate, 'start_date must be a date written YYYY-MM-DD').optional(),
  first_day_cap: int4({ min: 1, max: 10_000_000 }).default(200),
  growth: z
    .number({ error: 'growth must be a number from 1 to 10' })
    .min(1, 'growth must be a number from 1 to 10')
    .max(10, 'growth must be a number from 1 to 10')
    .default(2),
  days: int4({ min: 1, max: 365 }).default(10),
});
export type NewPlan = z.input<typeof NewPlan>;

export type WarmupPlan = Omit<q.PlanRow, 'account_id' | 'created_at'> & { created_at: string; today: Today };

export async function create(db: Db, clock: Clock, accountId: string, input: unknown): Promise<WarmupPlan> {
  const p = parseInput(NewPlan, input);
  const timezone = await q.accountTimezone(db, accountId);
  const start = p.start_date ?? localDate(knownZone(timezone), clock.now?.() ?? new Date());
  const row = await q.insertPlan(db, { ...p, account_id: accountId, start_date: start });
  if (!row) throw new Conflict('A warm-up plan for this domain already exists');
  return present(db, clock, row, timezone);
}

export async function list(db: Db, clock: Clock, accountId: string): Promise<WarmupPlan[]> {
  const [rows, timezone] = await Promise.all([q.listPlans(db, accountId), q.accountTimezone(db, accountId)]);
  return Promise.all(rows.map((r) => present(db, clock, r, timezone)));
}

export async function get(db: Db, clock: Clock, accountId: string, id: string): Promise<WarmupPlan> {
  const row = await q.findPlan(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return present(db, clock, row, await q.accountTimezone(db, accountId));
}

/** Ends the warm-up: the domain's next batches are no longer capped (campaigns waiting on it resume). */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await q.removePlan(db, accountId, id))) throw new NotFound(NOT_FOUND);
}

async function present(db: Db, clock: Clock, row: q.PlanRow, timezone: string): Promise<WarmupPlan> {
  const { account_id: _a, created_at, ...rest } = row;
  return {
    ...rest,
    created_at: created_at.toISOString(),
    today: await today(db, row.account_id, row, timezone, clock),
  };
}

// ---- calendar arithmetic on YYYY-MM-DD days and time zones (Intl, no library) ----

function knownZone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone;
  } catch {
    return 'UTC';
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function partsIn(zone: string, at: Date): Record<string, number> {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** The calendar day it is in `zone` at `at`, YYYY-MM-DD. */
export function localDate(zone: string, at: Date): string {
  const p = partsIn(zone, at);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant `day` begins in `zone` (its midnight; the first instant of the day when DST skips midnight). */
export function midnight(zone: string, day: string): Date {
  const target = Date.parse(`${day}T00:00:00Z`);
  const offsetAt = (t: number) => {
    const p = partsIn(zone, new Date(t));
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(t / 1000) * 1000;
  };
  let t = target - offsetAt(target);
  t = target - offsetAt(t);
  // a midnight that DST skips lands in the day before: step to where the day really starts
  if (localDate(zone, new Date(t)) < day) t += 3_600_000;
  return new Date(t);
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
