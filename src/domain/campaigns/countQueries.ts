// SQL of the campaign stats the database keeps (migration 20261127_1000): per campaign, signed deltas that
// every statement writing the ledger adds in its own transaction. Stats are the sum of a few rows, exact
// at the reader's snapshot; compact folds a campaign's rows into one.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

/** Past this many delta rows among the campaigns a read sums, their rows are folded after the read. */
const COMPACT_AFTER = 256;

const COLUMNS = [
  'recipients',
  'sent',
  'failed',
  'skipped',
  'interrupted',
  'pending',
  'opens',
  'unique_opens',
  'clicks',
  'unique_clicks',
  'unsubscribes',
  'bounces',
  'complaints',
  'soft_bounces',
  'machine_opens',
  'unique_human_opens',
] as const;

export type KeptCounts = Record<(typeof COLUMNS)[number], number>;

const sums = sql.join(COLUMNS.map((c) => sql`sum(${sql.ref(c)})::int8 as ${sql.ref(c)}`));
const columns = sql.join(COLUMNS.map((c) => sql.ref(c)));
const folded = sql.join(COLUMNS.map((c) => sql`sum(${sql.ref(c)})`));

/** The kept counts of each of the account's campaigns that has any (a campaign never frozen has none). */
export async function of(db: Db, accountId: string, campaignIds: string[]): Promise<Map<string, KeptCounts>> {
  const { rows } = await sql<KeptCounts & { campaign_id: string; deltas: number }>`
    select campaign_id, ${sums}, count(*)::int as deltas from campaign_counts
    where account_id = ${accountId}::uuid and campaign_id = any(${campaignIds}::uuid[])
    group by campaign_id`.execute(db);
  const found = new Map<string, KeptCounts>();
  const crowded: string[] = [];
  for (const { campaign_id, deltas, ...counts } of rows) {
    for (const c of COLUMNS) counts[c] = Number(counts[c]);
    found.set(campaign_id, counts);
    if (deltas > COMPACT_AFTER) crowded.push(campaign_id);
  }
  if (crowded.length > 0 && !db.isTransaction) await compact(db, accountId, crowded);
  return found;
}

/**
 * Folds each campaign's delta rows into one. Safe beside writers and other compactions: the rows it
 * deletes are those its snapshot sees, and it inserts exactly their sum. Best effort, never inside a
 * caller's transaction: a reader's stats are right either way, so a failure is left for the next read.
 */
export async function compact(db: Db, accountId: string, campaignIds: string[]): Promise<void> {
  await sql`
    with gone as (
      delete from campaign_counts
      where account_id = ${accountId}::uuid and campaign_id = any(${campaignIds}::uuid[])
      returning *
    )
    insert into campaign_counts (account_id, campaign_id, ${columns})
    select account_id, campaign_id, ${folded} from gone group by account_id, campaign_id`
    .execute(db)
    .catch(() => {});
}
