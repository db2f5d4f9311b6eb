// The per-recipient send ledger: freezing a campaign's audience when sending starts, and skipping who is
// still queued on cancel. The steps the send workers run on it (claim, record, recover) are in
// delivery/ledger.ts.
import type { Db } from '../../db/client.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import { extractLinks } from '../../mail/tracking.ts';
import * as segments from '../segments/segments.ts';
import { membersShare } from '../subscribers/groups.ts';
import { checkGroups } from '../subscribers/subscribers.ts';
import { allContent, splitAudience } from './abTests.ts';
import { dateText } from './localTime.ts';
import * as suppressions from '../subscribers/suppressions.ts';
import * as queries from './ledgerQueries.ts';
import { knownSuppressed } from './suppressedQueries.ts';
import { setCampaign } from './queries.ts';

export { skipQueued } from './ledgerQueries.ts';

/** audiences from this size on get fresh ledger statistics before their send (ledgerQueries.analyzeLedger) */
const ANALYZE_AFTER_FREEZING = 10_000;

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
  // every variant's links are stored (each once): the click redirect finds any of them by its index
  await queries.replaceLinks(trx, c.id, [...new Set(extractLinks(allContent(c)))]);
  // a segment deleted since the campaign was scheduled no longer contributes (a group likewise has no members)
  const segmentIds = await queries.existingSegments(trx, c.account_id, c.segment_ids);
  const inSegments = segmentIds.length > 0 ? await segments.whereInAny(trx, c.account_id, segmentIds) : undefined;
  // counted before the check below marks more, so nobody is counted twice
  const known = await knownSuppressed(trx, c.account_id, c.group_ids, inSegments);
  const frozen = c.resend_of
    ? await queries.freezeResendAudience(trx, c, c.resend_of)
    : await queries.freezeAudience(trx, c, inSegments, await groupRead(trx, c.account_id, c.group_ids));
  // in this transaction (ANALYZE counts its own new rows), so the first batch already plans with them
  if (frozen >= ANALYZE_AFTER_FREEZING) await queries.analyzeLedger(trx);
  const unchecked = await queries.uncheckedFrozen(trx, c.account_id, c.id);
  const suppressed = await check(trx, secret, c.account_id, unchecked);
  await queries.removeRecipients(
    trx,
    unchecked.filter((r) => suppressed.has(r.subscriber_id)).map((r) => r.id),
  );
  if (c.delivery === 'local_time' && c.local_time && c.local_date)
    await queries.scheduleLocalTimes(trx, c, dateText(c.local_date), c.local_time, c.local_time_past ?? 'send');
  await splitAudience(trx, c);
  return setCampaign(trx, c.id, {
    status: 'sending',
    delivery: c.delivery === 'local_time' ? 'local_time' : delivery,
    started_at: new Date(),
    updated_at: new Date(),
    suppressed_count: known + suppressed.size,
  });
}

/**
 * How many a send to these groups and segments would reach now: the freeze's own rule (active, each once,
 * minus suppressed addresses), counted in one query. Unknown ids are a Validation, as on save.
 */
export async function audienceCount(
  db: Db,
  secret: string,
  accountId: string,
  groupIds: string[],
  segmentIds: string[],
): Promise<number> {
  const groups = (await checkGroups(db, accountId, groupIds)).sort();
  // matchingAny reports unknown segment ids itself
  const inSegments = segmentIds.length > 0 ? await segments.matchingAny(db, accountId, segmentIds) : undefined;
  if (groups.length === 0 && !inSegments) return 0;
  // kept like a segment's count (until the next write, at most a minute): the editor asks on every change
  const [n] = await segments.counted(
    db,
    accountId,
    inSegments?.types ?? new Map(),
    inSegments?.filters ?? [],
    async () => {
      const read = await groupRead(db, accountId, groups);
      const { size, unchecked } = await queries.audienceSize(db, accountId, groups, inSegments?.where, read);
      return [size - (await check(db, secret, accountId, unchecked)).size];
    },
    { audience: groups },
  );
  return n!;
}

/** How the audience of these groups reads their membership (ledgerQueries.GroupRead). */
async function groupRead(db: Db, accountId: string, groupIds: string[]): Promise<queries.GroupRead> {
  return groupIds.length === 0 ? 'members' : queries.groupReadFor(await membersShare(db, accountId, groupIds));
}

// suppressions hold HMACs under the secret, which stays out of SQL: the audience query leaves out who is
// already known to be suppressed, and the addresses written since their account's first suppression that
// nobody has checked yet (migration 20261124_0900 lists them) are hashed here, in batches, and the answer
// recorded so the next audience reads it. Returns the subscribers among `rows` that are suppressed.
const CHECK_BATCH = 5_000;

async function check(db: Db, secret: string, accountId: string, rows: queries.Unchecked[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < rows.length; i += CHECK_BATCH) {
    const batch = rows.slice(i, i + CHECK_BATCH);
    const hit = await suppressions.suppressedAmong(
      db,
      secret,
      accountId,
      batch.map((r) => r.email),
    );
    const answers = batch.map((r) => ({ ...r, suppressed: hit.has(r.email.trim().toLowerCase()) }));
    await queries.recordChecks(db, accountId, answers);
    for (const a of answers) if (a.suppressed) found.add(a.subscriber_id);
  }
  return found;
}
