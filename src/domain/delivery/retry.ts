// Retrying a campaign's failures: the rows whose failure was temporary (refusals until the attempts ran
// out, no server or no message) go back to the queue and the campaign back to 'sending', where the send
// workers take them like any other queued row. Interrupted rows only when asked: SMTP may have accepted
// them, and a duplicate campaign email costs more than a missing one. Sent and skipped rows never.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { StateConflict } from '../errors.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import { find } from '../campaigns/campaigns.ts';
import { setCampaign } from '../campaigns/queries.ts';
import * as queries from './retryQueries.ts';

export const RETRY_STATES = ['failed', 'interrupted'] as const;

export const RetryInput = z
  .object({
    states: z
      .array(z.enum(RETRY_STATES, { error: `states must hold only: ${RETRY_STATES.join(', ')}` }), {
        error: 'states must be an array',
      })
      .min(1, 'states must name at least one state')
      .max(RETRY_STATES.length * 2)
      .default(['failed']),
  })
  .strict();
export type RetryInput = z.input<typeof RetryInput>;

export interface RetryResult {
  requeued: number;
  status: string;
}

/** What a retry would take now, for the dashboard's button and its confirmation. */
export async function retryable(db: Db, accountId: string, id: string): Promise<queries.Retryable> {
  await find(db, accountId, id);
  return queries.retryable(db, accountId, id);
}

/**
 * sent | sending → sending with the chosen rows queued again. Idempotent: once they are queued nothing is
 * left to take, so a second call answers `requeued: 0` and changes nothing.
 */
export async function retry(db: Db, accountId: string, id: string, input: unknown): Promise<RetryResult> {
  const { states } = parseInput(RetryInput, input ?? {});
  return inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status !== 'sent' && c.status !== 'sending')
      throw new StateConflict('Only sending or sent campaigns can be retried');
    const requeued = await queries.requeue(trx, accountId, id, {
      failed: states.includes('failed'),
      interrupted: states.includes('interrupted'),
    });
    if (requeued === 0 || c.status === 'sending') return { requeued, status: c.status };
    await setCampaign(trx, id, { status: 'sending', finished_at: null, updated_at: new Date() });
    return { requeued, status: 'sending' };
  });
}
