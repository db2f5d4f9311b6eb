// The warm-up cap applied at send time: before each batch of a campaign the send lanes reserve up to a
// batch of today's cap of the campaign's sending domain (plans and caps: campaigns/warmup.ts), claim at
// most that many rows and give back what the claim did not use. Automation emails are not capped (see
// docs/automations.md): they are triggered one by one, and a welcome email held for a day is a broken one.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { mailFromAddress } from '../../mail/headers.ts';
import { CAP_CEILING, capOn, dayOf, type Clock } from '../campaigns/warmup.ts';
import * as q from '../campaigns/warmupQueries.ts';

/**
 * The send lanes' one call before claiming a batch of a campaign: reserves up to `limit` rows of today's
 * cap of the campaign's sending domain, claims at most that many through `claim`, and gives back what the
 * claim did not use. None when the cap is used up today: the campaign's rows wait, queued (so it is not
 * finished), and the lane moves on to other campaigns. A crash between reserving and giving back leaves the day's count a
 * little high, so the domain sends a little less that day, never more.
 */
export async function claimWithin<T>(
  db: Db,
  config: Clock & Pick<Config, 'MAIL_FROM'>,
  campaign: { id: string; account_id: string },
  limit: number,
  claim: (limit: number) => Promise<T[]>,
): Promise<T[]> {
  const found = await planFor(db, config, campaign);
  const plan = found?.plan;
  if (!plan) return claim(limit);
  const day = dayOf(plan, found.timezone, config);
  const key = { account_id: campaign.account_id, domain: plan.domain, day: day.key };
  const granted = await q.reserve(db, key, limit, capOn(plan, day.index) ?? CAP_CEILING);
  if (granted === 0) return [];
  let rows: T[] = [];
  try {
    rows = await claim(granted);
  } finally {
    await q.giveBack(db, key, granted - rows.length);
  }
  return rows;
}

// which plan governs a sending campaign, remembered for a second: the lanes ask before every batch, and
// most campaigns have none (measured on PGlite: the lookup cost as much as a small batch's claim). A plan
// created or deleted mid-send applies within that second; the day's count itself is never cached.
const PLAN_TTL_MS = 1000;
const plansOf = new Map<string, { at: number; found: Promise<Awaited<ReturnType<typeof q.planOfCampaign>>> }>();

function planFor(db: Db, config: Pick<Config, 'MAIL_FROM'>, campaign: { id: string; account_id: string }) {
  const now = Date.now();
  const hit = plansOf.get(campaign.id);
  if (hit && now - hit.at < PLAN_TTL_MS) return hit.found;
  if (plansOf.size > 1000) plansOf.clear();
  const found = q.planOfCampaign(db, campaign.account_id, campaign.id, mailFromAddress(config.MAIL_FROM));
  found.catch(() => plansOf.delete(campaign.id));
  plansOf.set(campaign.id, { at: now, found });
  return found;
}
