// The dashboard's overview beyond the subscriber counts: growth per day over 30 days, the latest
// campaigns with their rates, and the bounce and complaint rates of what was sent in the last 30 days.
import type { Db } from '../../db/client.ts';
import { cachedRead } from '../../db/readCache.ts';
import * as queries from './queries.ts';
import * as q from './reportQueries.ts';
import * as rows from './rows.ts';
import * as campaignStats from './stats.ts';

export const DAYS = 30;

/**
 * `total` is the number of subscribers that exist now and had been added by the end of each day (in the
 * account's time zone): walked back from today's total, so one indexed range over the window is all it reads.
 * The recent campaigns' rows and the 30-day rates come from one aggregate of the ledger, over those
 * campaigns and the ones that started in the window (mostly the same ones).
 */
export async function overview(db: Db, accountId: string, totalNow: number | Promise<number>) {
  // three independent chains, so the slowest (the ledger aggregate) sets the time, not their sum
  const [[perDay, today], recent, sums, total] = await Promise.all([
    queries.account(db, accountId).then((a) => newPerDay(db, accountId, a.timezone || 'UTC')),
    ...campaignsAndRates(db, accountId),
    totalNow,
  ]);
  const added = new Map(perDay.map((r) => [r.day, r.n]));
  const growth: { day: string; total: number; new: number }[] = [];
  let left = total;
  const date = new Date(`${today}T00:00:00Z`);
  for (let i = 0; i < DAYS; i++) {
    const day = date.toISOString().slice(0, 10);
    const n = added.get(day) ?? 0;
    growth.push({ day, total: left, new: n });
    left -= n;
    date.setUTCDate(date.getUTCDate() - 1);
  }
  return {
    growth: growth.reverse(),
    recent_campaigns: recent,
    rates: {
      sent_30d: sums.sent,
      bounce_rate: sums.sent > 0 ? sums.bounces / sums.sent : 0,
      complaint_rate: sums.sent > 0 ? sums.complaints / sums.sent : 0,
    },
  };
}

/**
 * The subscribers added per day, kept between writes to subscribers (db/readCache.ts) and for a minute at
 * most, so the day rolls over: at 1,000,000 subscribers a month holds about 40,000 of them, the largest
 * read of the overview after the campaigns' ledger.
 */
async function newPerDay(db: Db, accountId: string, timezone: string) {
  const load = async () => {
    const [perDay, today] = await Promise.all([q.newPerDay(db, accountId, timezone, DAYS), q.today(db, timezone)]);
    return { perDay, today };
  };
  const kept = await cachedRead(db, 'new per day', `${accountId} ${timezone}`, load, {
    maxAgeMs: 60_000,
    maxEntries: 1000,
  });
  return [kept.perDay, kept.today] as const;
}

// the newest five as list rows, and the sent, bounced and complained of the campaigns started in the window
function campaignsAndRates(db: Db, accountId: string) {
  const read = Promise.all([queries.newest(db, accountId, undefined, 5), q.startedSince(db, accountId, DAYS)]).then(
    async ([newest, started]) => {
      const stats = await campaignStats.of(db, accountId, [...new Set([...newest.map((r) => r.id), ...started])]);
      const sums = { sent: 0, bounces: 0, complaints: 0 };
      for (const id of started) {
        const s = stats.get(id) ?? campaignStats.EMPTY;
        sums.sent += s.sent;
        sums.bounces += s.bounces;
        sums.complaints += s.complaints;
      }
      return { recent: await rows.listRows(db, accountId, newest, stats), sums };
    },
  );
  return [read.then((r) => r.recent), read.then((r) => r.sums)] as const;
}
