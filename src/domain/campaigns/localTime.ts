// Local-time delivery: a campaign sent at one wall-clock hour (e.g. 09:00 on a date) in each subscriber's
// time zone (their own, else the account's). It starts when the first zone on Earth reaches that hour
// (UTC+14) and each ledger row is due at its own instant (next_attempt_at), so the send spreads over up to
// 26 hours with the ledger, throttles and warm-up as for every send. Who is past that hour when the send
// starts gets it at once or not at all, as the campaign says.
//
// Not for a campaign with an A/B test: the test judges its variants on the opens of one window after the
// test share went out, and the winner goes to the rest at one moment; spread over 26 hours, each variant's
// share would be judged at a different local hour of its readers, and the rest would reach some zones in
// the middle of their night. Such a schedule is refused (422), as other services refuse it.
import { z } from 'zod';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import { Unprocessable, Validation } from '../errors.ts';

/** the earliest zone (Pacific/Kiritimati, UTC+14) reaches a local hour this long before UTC does */
const EARLIEST_OFFSET_MS = 14 * 3_600_000;

export const PAST = ['send', 'skip'] as const;

export const ScheduleFields = {
  local_time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'local_time must be a time of day as HH:MM, e.g. 09:00')
    .optional(),
  date: z.iso.date('date must be a date as YYYY-MM-DD').optional(),
  /** what a recipient whose local hour has already passed gets: the campaign at once, or nothing */
  local_time_passed: z.enum(PAST, { error: `local_time_passed must be one of: ${PAST.join(', ')}` }).optional(),
};

interface Schedule {
  delivery: string;
  local_time?: string;
  date?: string;
  local_time_passed?: (typeof PAST)[number];
}

export const WITH_AB_TEST =
  'Local-time delivery is not available for a campaign with an A/B test: the winner is chosen at one moment ' +
  'for everyone. Send it now or at a set time, or remove the A/B test.';

/** The columns a local-time schedule writes; the campaign starts when the first zone reaches the hour. */
export function scheduleColumns(c: Pick<CampaignRow, 'ab_test'>, s: Schedule) {
  if (c.ab_test) throw new Unprocessable(WITH_AB_TEST);
  if (!s.local_time) throw missing('local_time', 'local_time is required when delivery is local_time');
  if (!s.date) throw missing('date', 'date is required when delivery is local_time');
  const utc = Date.parse(`${s.date}T${s.local_time}:00Z`);
  // the last zone (UTC-12) reaches it 12 hours after UTC: later than that, nobody would get it on time
  if (utc + 12 * 3_600_000 <= Date.now()) throw missing('date', 'date and local_time have passed in every time zone');
  return {
    delivery: 'local_time' as const,
    scheduled_at: new Date(Math.max(Date.now(), utc - EARLIEST_OFFSET_MS)),
    local_time: s.local_time,
    local_date: s.date,
    local_time_past: s.local_time_passed ?? 'send',
  };
}

export interface LocalTimeView {
  local_time: string;
  date: string;
  local_time_passed: (typeof PAST)[number];
}

export function view(c: CampaignRow): LocalTimeView | null {
  if (c.delivery !== 'local_time' || !c.local_time || !c.local_date) return null;
  return { local_time: c.local_time, date: dateText(c.local_date), local_time_passed: c.local_time_past ?? 'send' };
}

/** PostgreSQL's date as YYYY-MM-DD (pg hands a date back as a Date at local midnight, PGlite as text). */
export function dateText(d: string | Date): string {
  if (typeof d === 'string') return d.slice(0, 10);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function missing(field: string, message: string) {
  return new Validation({ [field]: [message] }, `${field}: ${message}`);
}
