// Turns zod failures into the domain's Validation error (field name → messages), for every face alike; and the
// rules every face shares for whole numbers (int4) and dates (isCalendarDate, instant).
import { z } from 'zod';
import { Validation, type FieldErrors } from './errors.ts';

export function toFieldErrors(error: z.ZodError, prefix = ''): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    const key = prefix + path || '_';
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}

/** A zod failure as a Validation: every field's messages, and the first problem in words. */
export function validationOf(error: z.ZodError, prefix = ''): Validation {
  return Validation.of(toFieldErrors(error, prefix));
}

/** schema.parse that throws Validation instead of ZodError. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationOf(result.error, prefix);
}

/** The largest value of a PostgreSQL `int` (int4) column. */
export const INT4_MAX = 2_147_483_647;

/**
 * A whole number an `int` column can hold: a JSON number (not a numeric string), within [min, max], 0 and
 * up unless said otherwise, since the int columns behind inputs are counts and limits. Out of range is the
 * caller's 400 naming the field, never the database's error.
 */
export function int4({ min = 0, max = INT4_MAX } = {}) {
  const message = `Must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

// four-digit years from 0001: PostgreSQL has no year 0, and JavaScript dates end in +275760
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written YYYY-MM-DD, year 0001 to 9999 (2026-02-30 and 0000-01-01 are not). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE.exec(value);
  if (!m || m[1] === '0000') return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

const INSTANT_MESSAGE = 'Must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T09:00:00+01:00';
const DATE_TIME = z.iso.datetime({ offset: true, error: INSTANT_MESSAGE });

/** An ISO 8601 date-time with Z or a UTC offset (2026-12-01T09:00:00+01:00), year 0001 to 9999. */
export function isInstant(value: unknown): value is string {
  return typeof value === 'string' && DATE_TIME.safeParse(value).success && isCalendarDate(value.slice(0, 10));
}

/**
 * The one date-time input rule (key expiry, scheduled sends), kept as the string given: a date alone is
 * refused rather than guessed at (midnight in which zone?), and so is a year PostgreSQL cannot store.
 */
export function instant() {
  // zod runs a refinement even after the format failed: pass those, so the answer says it once
  return DATE_TIME.refine((s) => !DATE_TIME.safeParse(s).success || isInstant(s), INSTANT_MESSAGE);
}

// the shape of a zone name, not an offset (+01:00) or an abbreviation PostgreSQL would read otherwise
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * A time zone by its IANA name (Europe/Berlin, America/New_York, UTC) that this runtime's zone database
 * knows: the one rule for the account's zone and a subscriber's.
 */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64 || !ZONE_NAME.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
