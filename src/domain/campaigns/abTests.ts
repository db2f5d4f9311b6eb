// A/B tests of a campaign: 2-5 variants of subject, preview text, sender name or content sent to a test
// share of the audience (split evenly at random, seeded so a send can be reproduced), then the winner —
// by human opens, by clicks, or picked by hand — to the rest. The rest waits in the ledger (queued, due at
// 'infinity') until the winner is known; the scheduler decides an automatic winner once its wait is over
// (decideDue), under a row lock, so with several instances it is decided once and survives a restart.
// Opens of privacy proxies and scanners never count (HUMAN_OPENED): they are not interest.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { AbTestColumn, CampaignRow } from '../../db/schema/campaigns.ts';
import { NotFound, StateConflict, Validation } from '../errors.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as q from './abTestQueries.ts';
import { ContentFields, contentColumns } from './content.ts';
import { checkInPool } from './templates.ts';

export const WINNER_BY = ['opens', 'clicks', 'manual'] as const;
/** the wait before an automatic winner: 1 hour to 7 days */
export const MIN_WAIT_HOURS = 1;
export const MAX_WAIT_HOURS = 168;

const Text = (max: number) => z.string().trim().max(max).nullable().optional();

export const Variant = z.object({
  subject: Text(255),
  preview_text: Text(255),
  from_name: Text(200),
  ...ContentFields,
});

export const AbTestInput = z.object({
  variants: z
    .array(Variant, { error: 'ab_test.variants must be a list of 2 to 5 variants' })
    .min(2, 'An A/B test needs at least 2 variants')
    .max(5, 'An A/B test has at most 5 variants'),
  test_percent: z
    .number({ error: 'ab_test.test_percent must be a number from 1 to 100' })
    .int('ab_test.test_percent must be a whole number')
    .min(1, 'ab_test.test_percent must be at least 1')
    .max(100, 'ab_test.test_percent must be at most 100'),
  winner_by: z.enum(WINNER_BY, { error: `ab_test.winner_by must be one of: ${WINNER_BY.join(', ')}` }),
  wait_hours: z
    .number({ error: 'ab_test.wait_hours must be a number of hours from 1 to 168' })
    .min(MIN_WAIT_HOURS, 'ab_test.wait_hours must be at least 1')
    .max(MAX_WAIT_HOURS, 'ab_test.wait_hours must be at most 168 (7 days)'),
});
export type AbTestInput = z.input<typeof AbTestInput>;

/**
 * The stored form of a test: each variant's content compiled through the one content function
 * (content.ts), its Liquid checked as the campaign's is; the seed drawn now, so every send of this test
 * splits the audience the same way.
 */
export async function toColumn(input: z.output<typeof AbTestInput>, seed?: number): Promise<AbTestColumn> {
  const variants: AbTestColumn['variants'] = [];
  for (const [i, v] of input.variants.entries()) {
    const out: AbTestColumn['variants'][number] = {
      ...(v.subject !== undefined && { subject: v.subject }),
      ...(v.preview_text !== undefined && { preview_text: v.preview_text }),
      ...(v.from_name !== undefined && { from_name: v.from_name }),
    };
    if (v.content_source !== undefined || v.content_format !== undefined) {
      const c = await variantError(i, () =>
        contentColumns(undefined, {
          content_format: v.content_format ?? 'html',
          content_source: v.content_source ?? null,
        }),
      );
      out.content_format = c.content_format;
      out.content_source = c.content_source ?? null;
      out.content_html = c.content_html ?? null;
    }
    await variantError(i, async () =>
      checkInPool({ subject: out.subject ?? '', html: out.content_html ?? '', text: null }),
    );
    variants.push(out);
  }
  return {
    variants,
    test_percent: input.test_percent,
    winner_by: input.winner_by,
    wait_hours: input.wait_hours,
    seed: seed ?? Math.floor(Math.random() * 2 ** 31),
  };
}

/** A variant's Validation names the variant: "ab_test.variants.1.subject: …". */
async function variantError<T>(i: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof Validation)) throw err;
    const fields = Object.fromEntries(
      Object.entries(err.fields).map(([k, v]) => [
        `ab_test.variants.${i}.${k === 'content_html' ? 'content_source' : k}`,
        v,
      ]),
    );
    throw Validation.of(fields);
  }
}

/** The campaign as variant `i` sends it: the variant's fields over the campaign's. */
export function variantCampaign(c: CampaignRow, i: number): CampaignRow {
  const v = c.ab_test?.variants[i];
  if (!v) return c;
  return {
    ...c,
    subject: v.subject ?? c.subject,
    preview_text: v.preview_text !== undefined ? v.preview_text : c.preview_text,
    from_name: v.from_name !== undefined ? v.from_name : c.from_name,
    content_html: v.content_html !== undefined ? v.content_html : c.content_html,
  };
}

/** Every HTML a send of this campaign can use (links of all variants are stored, each once). */
export function allContent(c: CampaignRow): string {
  const parts = [c.content_html ?? ''];
  for (const v of c.ab_test?.variants ?? []) if (v.content_html) parts.push(v.content_html);
  return parts.join('\n');
}

/**
 * After the audience is frozen: the test share (test_percent of it, at least one per variant when the
 * audience allows) is split evenly among the variants in a seeded random order; the rest is held until the
 * winner is known. The wait starts now.
 */
export async function splitAudience(trx: Db, c: CampaignRow): Promise<void> {
  const t = c.ab_test;
  if (!t) return;
  await q.split(trx, c.id, t.seed, t.variants.length, t.test_percent);
  await trx
    .updateTable('campaigns')
    .set({ ab_decide_at: new Date(Date.now() + t.wait_hours * 3_600_000) })
    .where('id', '=', c.id)
    .execute();
}

export interface VariantStats {
  sent: number;
  human_opens: number;
  clicks: number;
  unsubscribes: number;
  bounces: number;
}

/** The test share's results per variant (the rest, sent the winner later, is not part of the test). */
export async function variantStats(db: Db, c: CampaignRow): Promise<VariantStats[]> {
  const n = c.ab_test?.variants.length ?? 0;
  const rows = await q.stats(db, c.id);
  const out: VariantStats[] = Array.from({ length: n }, () => ({
    sent: 0,
    human_opens: 0,
    clicks: 0,
    unsubscribes: 0,
    bounces: 0,
  }));
  for (const { variant, ...counts } of rows) if (variant !== null && out[variant]) out[variant] = counts;
  return out;
}

/**
 * Whether the leader's rate beats the runner-up's beyond chance: a two-proportion z-test (pooled), as
 * the report's confidence note. `confidence` is 1 - the one-sided p-value.
 */
export function twoProportion(
  a: { hits: number; n: number },
  b: { hits: number; n: number },
): { z: number; confidence: number } {
  if (a.n === 0 || b.n === 0) return { z: 0, confidence: 0.5 };
  const p1 = a.hits / a.n;
  const p2 = b.hits / b.n;
  const p = (a.hits + b.hits) / (a.n + b.n);
  const se = Math.sqrt(p * (1 - p) * (1 / a.n + 1 / b.n));
  if (se === 0) return { z: 0, confidence: 0.5 };
  const z = (p1 - p2) / se;
  return { z, confidence: normalCdf(z) };
}

// Abramowitz-Stegun 7.1.26: 1.5e-7 at most off, plenty for a report's note
function normalCdf(z: number): number {
  if (z === 0) return 0.5;
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/** The variant with the most human opens (or clicks) per message sent; ties go to the earlier variant. */
export function leader(stats: VariantStats[], by: 'opens' | 'clicks'): number {
  let best = 0;
  let bestRate = -1;
  stats.forEach((s, i) => {
    const rate = s.sent === 0 ? 0 : (by === 'opens' ? s.human_opens : s.clicks) / s.sent;
    if (rate > bestRate) ((best = i), (bestRate = rate));
  });
  return best;
}

export interface AbTestView {
  variants: (AbTestColumn['variants'][number] & { stats: VariantStats })[];
  test_percent: number;
  winner_by: AbTestColumn['winner_by'];
  wait_hours: number;
  /** the winner's index, null until it is known */
  winner: number | null;
  /** when the automatic winner is due; null before the test starts and for winner_by manual */
  decides_at: Date | null;
  /** how sure the leader leads (two-proportion test against the runner-up), once something was sent */
  confidence: { leader: number; runner_up: number; z: number; confidence: number } | null;
}

export async function view(db: Db, c: CampaignRow): Promise<AbTestView | null> {
  const t = c.ab_test;
  if (!t) return null;
  const stats =
    c.status === 'draft' || c.status === 'scheduled' ? t.variants.map(() => EMPTY) : await variantStats(db, c);
  const by = t.winner_by === 'clicks' ? 'clicks' : 'opens';
  let confidence: AbTestView['confidence'] = null;
  if (stats.some((s) => s.sent > 0)) {
    const lead = leader(stats, by);
    const others = stats.map((s, i) => ({ s, i })).filter((x) => x.i !== lead);
    const runnerUp = leader(
      others.map((x) => x.s),
      by,
    );
    const r = others[runnerUp]!;
    const hits = (s: VariantStats) => (by === 'opens' ? s.human_opens : s.clicks);
    confidence = {
      leader: lead,
      runner_up: r.i,
      ...twoProportion({ hits: hits(stats[lead]!), n: stats[lead]!.sent }, { hits: hits(r.s), n: r.s.sent }),
    };
  }
  return {
    variants: t.variants.map(({ content_html: _h, ...v }, i) => ({ ...v, stats: stats[i]! })),
    test_percent: t.test_percent,
    winner_by: t.winner_by,
    wait_hours: t.wait_hours,
    winner: c.ab_winner,
    decides_at: t.winner_by === 'manual' ? null : c.ab_decide_at,
    confidence,
  };
}

const EMPTY: VariantStats = Object.freeze({ sent: 0, human_opens: 0, clicks: 0, unsubscribes: 0, bounces: 0 });

export const WinnerInput = z.object({
  variant: z.number({ error: 'variant must be the index of a variant' }).int('variant must be a whole number').min(0),
});

/** A winner picked by hand: the rest of the audience gets it at once. */
export async function pickWinner(db: Db, accountId: string, id: string, input: unknown): Promise<void> {
  const { variant } = parseInput(WinnerInput, input);
  await inTransaction(db, async (trx) => {
    const c = await q.lockCampaign(trx, id, accountId);
    if (!c) throw new NotFound('Campaign not found');
    if (!c.ab_test) throw new StateConflict('The campaign has no A/B test');
    if (variant >= c.ab_test.variants.length)
      throw Validation.field('variant', `variant must be from 0 to ${c.ab_test.variants.length - 1}`);
    if (c.ab_winner !== null) throw new StateConflict('The winner of this A/B test is already chosen');
    if (c.status !== 'sending' && c.status !== 'paused')
      throw new StateConflict('A winner can be picked only while the campaign is sending or paused');
    await q.release(trx, c.id, variant);
  });
}

/**
 * The scheduler's step: decides every automatic winner whose wait is over, each in its own transaction
 * (SKIP LOCKED and the winner still unknown: decided once, whichever instance gets there). Returns the
 * campaigns decided.
 */
export async function decideDue(db: Db, limit = 10): Promise<string[]> {
  const decided: string[] = [];
  for (let i = 0; i < limit; i++) {
    const id = await inTransaction(db, async (trx) => {
      const c = await q.nextDue(trx);
      if (!c || !c.ab_test) return undefined;
      const stats = await variantStats(trx, c);
      await q.release(trx, c.id, leader(stats, c.ab_test.winner_by === 'clicks' ? 'clicks' : 'opens'));
      return c.id;
    });
    if (!id) break;
    decided.push(id);
  }
  return decided;
}
