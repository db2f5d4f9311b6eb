// Opens and clicks of campaign emails (DESIGN §6 tracking): each one counts on the recipient's ledger row
// (opens/clicks, first opened_at/clicked_at: campaign stats read these) and writes email.opened /
// email.clicked with subscriber_id set (segments and automations read data->>'campaign_id').
// Nothing is recorded when the account has turned tracking off.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { recordEvent } from './events.ts';

export interface Target {
  campaign_id: string;
  subscriber_id: string;
}

export async function recordOpen(db: Db, t: Target): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await touch(trx, t, sql`opens = opens + 1, opened_at = coalesce(opened_at, now())`);
    if (!row) return false;
    await recordEvent(trx, row.account_id, 'email.opened', { campaign_id: t.campaign_id, subscriber: { id: t.subscriber_id, email: row.email }, message_id: row.message_id }, t.subscriber_id);
    return true;
  });
}

/**
 * The stored URL of link `link` of the campaign (undefined: no such link), after counting the click.
 * A click also counts as an open when none was seen (images are often blocked).
 */
export async function recordClick(db: Db, t: Target & { link: number }): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const link = await trx.selectFrom('campaign_links').select('url').where('campaign_id', '=', t.campaign_id).where('idx', '=', t.link).executeTakeFirst();
    if (!link) return undefined;
    const row = await touch(trx, t, sql`clicks = clicks + 1, clicked_at = coalesce(clicked_at, now()), opened_at = coalesce(opened_at, now())`);
    if (row) {
      await recordEvent(trx, row.account_id, 'email.clicked', { campaign_id: t.campaign_id, subscriber: { id: t.subscriber_id, email: row.email }, message_id: row.message_id, url: link.url }, t.subscriber_id);
    }
    return link.url;
  });
}

// `changes` is one of the two fixed SET lists above, never user input
async function touch(trx: Db, t: Target, changes: ReturnType<typeof sql>) {
  const r = await sql<{ account_id: string; email: string; message_id: string | null }>`
    update campaign_recipients r set ${changes}
    from accounts a
    where r.campaign_id = ${t.campaign_id}::uuid and r.subscriber_id = ${t.subscriber_id}::uuid
      and r.state = 'sent' and a.id = r.account_id and a.tracking_enabled
    returning r.account_id, r.email, r.message_id`.execute(trx);
  return r.rows[0];
}
