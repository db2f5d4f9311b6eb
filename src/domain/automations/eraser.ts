// Erases one address from the automations tables (forget_subscriber). Owned by the automations area.
// Runs keep no address (history holds step results, group ids and message ids), only the subscriber id;
// they would go with the subscriber row (ON DELETE CASCADE), and are deleted here first so that no run
// is left between steps while forget finishes; their tracked emails (automation_emails, no address
// either) go with them. The automation's counters keep their totals.
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from '../eraser.ts';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  await trx
    .deleteFrom('automation_runs')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', target.subscriberId)
    .execute();
}
