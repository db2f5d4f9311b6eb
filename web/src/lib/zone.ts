// Wall-clock times in the account's time zone (Settings), whatever the browser's own zone is: what a
// marketer types for a schedule is a time where their audience lives, and the server wants an ISO time
// with its UTC offset.

/** The zone's offset from UTC at an instant, in minutes (Europe/Berlin in summer → 120). */
export function offsetMinutes(zone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** 120 → "+02:00", -330 → "-05:30". */
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** "2026-12-01T09:00" as a wall time in `zone` → "2026-12-01T09:00:00+01:00" and its offset. */
export function zonedIso(local: string, zone: string): { iso: string; offset: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return undefined;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  // the offset at the instant itself; twice, because guessing with the wall time can land across a change
  let offset = offsetMinutes(zone, new Date(wall));
  offset = offsetMinutes(zone, new Date(wall - offset * 60_000));
  return { iso: `${local}:00${offsetText(offset)}`, offset };
}

/** An instant as "2026-12-01T09:00" in `zone` (for a datetime-local input). */
export function localInput(at: Date, zone: string): string {
  const shifted = new Date(at.getTime() + offsetMinutes(zone, at) * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/** An instant shown in the account's zone, with its UTC offset (dateStyle cannot be combined with timeZoneName). */
export function formatInZone(at: string | Date, zone: string): string {
  const d = new Date(at);
  const text = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });
  return `${text} (${zone}, UTC${offsetText(offsetMinutes(zone, d))})`;
}
