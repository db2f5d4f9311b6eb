// The per-recipient send ledger: freezing a campaign's audience when sending starts, and skipping who is
// still queued on cancel. The steps the send workers run on it (claim, record, recover) are in sending.ts.
import type { Db } from '../../db/client.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import { extractLinks } from '../../mail/tracking.ts';
import * as segments from '../segments/segments.ts';
import { hashEmail } from '../subscribers/suppressions.ts';
import * as queries from './ledgerQueries.ts';
import { setCampaign } from './queries.ts';

export { skipQueued } from './ledgerQueries.ts';

/** Checks that every id is a segment of this account (Validation otherwise); returns them lower-cased. */
export async function checkSegments(db: Db, accountId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length > 0) await segments.whereInAny(db, accountId, unique);
  return unique;
}

/**
 * sending starts: stores the campaign's trackable links, freezes the audience with one INSERT … SELECT
 * (active members of its groups or segments, each once, minus suppressed addresses) and marks it sending.
 */
export async function start(
  trx: Db,
  c: CampaignRow,
  delivery: 'instant' | 'scheduled',
  secret: string,
): Promise<CampaignRow> {
  await queries.replaceLinks(trx, c.id, extractLinks(c.content_html ?? ''));
  // a segment deleted since the campaign was scheduled no longer contributes (a group likewise has no members)
  const segmentIds = await queries.existingSegments(trx, c.account_id, c.segment_ids);
  const inSegments = segmentIds.length > 0 ? await segments.whereInAny(trx, c.account_id, segmentIds) : undefined;
  await queries.freezeAudience(trx, c, inSegments);
  await dropSuppressed(trx, c, secret);
  return setCampaign(trx, c.id, { status: 'sending', delivery, started_at: new Date(), updated_at: new Date() });
}

// suppressions hold HMACs, which SQL cannot compute without pgcrypto: when (and only when) the account
// has any, the frozen addresses are hashed here and the matches removed in one statement
async function dropSuppressed(trx: Db, c: CampaignRow, secret: string): Promise<void> {
  if (!(await queries.hasSuppressions(trx, c.account_id))) return;
  const hashes = await queries.suppressionHashes(trx, c.account_id);
  const rows = await queries.frozenAddresses(trx, c.id);
  await queries.removeRecipients(
    trx,
    rows.filter((r) => hashes.has(hashEmail(secret, r.email))).map((r) => r.id),
  );
}
