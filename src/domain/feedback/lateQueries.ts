// SQL of what a report that came home later by mail says on the email's own row (feedback,
// feedback_status, feedback_detail, feedback_at), for bounces.ts applyLate.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { LateFeedback } from '../../db/schema/campaigns.ts';
import type { EmailRow } from './queries.ts';

/** What a late report said of the email so far, its row locked until the transaction ends. */
export async function lockFeedback(trx: Db, e: EmailRow): Promise<LateFeedback | null | undefined> {
  const r =
    e.table === 'campaign_recipients'
      ? await trx
          .selectFrom('campaign_recipients')
          .select('feedback')
          .where('id', '=', e.id)
          .forUpdate()
          .executeTakeFirst()
      : await trx
          .selectFrom('automation_emails')
          .select('feedback')
          .where('id', '=', e.id)
          .forUpdate()
          .executeTakeFirst();
  return r?.feedback;
}

/** Writes what the report said on the email's row (the latest report wins). */
export async function recordFeedback(
  trx: Db,
  e: EmailRow,
  f: { feedback: LateFeedback; status: string | null; detail: string | null },
): Promise<void> {
  const set = {
    feedback: f.feedback,
    feedback_status: f.status,
    feedback_detail: f.detail,
    feedback_at: sql<Date>`now()`,
  };
  if (e.table === 'campaign_recipients')
    await trx.updateTable('campaign_recipients').set(set).where('id', '=', e.id).execute();
  else await trx.updateTable('automation_emails').set(set).where('id', '=', e.id).execute();
}
