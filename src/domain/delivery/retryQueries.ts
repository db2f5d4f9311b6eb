// SQL of retrying a campaign's failures: counting what a retry would take and putting it back in the queue.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

export interface Retryable {
  failed: number;
  interrupted: number;
}

/** How many rows a retry could take, by state (failed: transient failures only). */
export async function retryable(db: Db, accountId: string, campaignId: string): Promise<Retryable> {
  const r = await db
    .selectFrom('campaign_recipients')
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .select([
      sql<number>`count(*) filter (where state = 'failed' and failure in ('expired', 'error'))::int`.as('failed'),
      sql<number>`count(*) filter (where state = 'interrupted')::int`.as('interrupted'),
    ])
    .executeTakeFirstOrThrow();
  return { failed: Number(r.failed), interrupted: Number(r.interrupted) };
}

/**
 * Failed rows with a transient failure and, when asked, interrupted ones go back to 'queued' for a new
 * round of attempts; the round they end is appended to previous_errors. Never sent or skipped rows.
 */
export async function requeue(
  trx: Db,
  accountId: string,
  campaignId: string,
  states: { failed: boolean; interrupted: boolean },
): Promise<number> {
  const r = await sql<{ n: number }>`
    with upd as (
      update campaign_recipients set
        previous_errors = previous_errors || jsonb_build_array(jsonb_build_object(
          'state', state, 'failure', failure, 'error', last_error, 'attempts', attempts, 'at', now())),
        state = 'queued', attempts = 0, next_attempt_at = null, worker_id = null, failure = null, last_error = null
      where account_id = ${accountId}::uuid and campaign_id = ${campaignId}::uuid
        and ((${states.failed} and state = 'failed' and failure in ('expired', 'error'))
          or (${states.interrupted} and state = 'interrupted'))
      returning 1
    ) select count(*)::int as n from upd`.execute(trx);
  return Number(r.rows[0]?.n ?? 0);
}
