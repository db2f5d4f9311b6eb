// Opens and clicks of tracked emails, campaign and automation emails alike. Each one
// counts on the email's own row (campaign_recipients or automation_emails: opens/clicks, first
// opened_at/clicked_at, which the stats read) and writes email.opened / email.clicked with subscriber_id
// set, naming where the email came from: {campaign_id} or {automation_id, step, run_id}. Segments and the
// campaign_opened / link_clicked triggers read data->>'campaign_id', so only campaign emails feed them.
// Nothing is recorded when the account has turned tracking off; the redirect still works.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { TrackTarget } from '../../mail/tracking.ts';
import { recordEvent } from '../events/log.ts';
import { inTransaction } from '../transaction.ts';

type Changes = RawBuilder<unknown>;
// the two fixed SET lists; never user input. A click also counts as an open when none was seen
// (images are often blocked).
const OPEN: Changes = sql`opens = opens + 1, opened_at = coalesce(opened_at, now())`;
const CLICK: Changes = sql`clicks = clicks + 1, clicked_at = coalesce(clicked_at, now()), opened_at = coalesce(opened_at, now())`;

/** The counted email: who it went to, and the event data naming its source. */
interface Touched {
  account_id: string;
  subscriber_id: string;
  email: string;
  message_id: string | null;
  source: Record<string, unknown>;
}

export async function recordOpen(db: Db, t: TrackTarget): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const row = await touch(trx, t, OPEN);
    if (!row) return false;
    await recordEvent(trx, row.account_id, 'email.opened', eventData(row), row.subscriber_id);
    return true;
  });
}

/** The stored URL of link `link` of the email (undefined: no such link), after counting the click. */
export async function recordClick(db: Db, t: TrackTarget, link: number): Promise<string | undefined> {
  return inTransaction(db, async (trx) => {
    const url = await storedLink(trx, t, link);
    if (url === undefined) return undefined;
    const row = await touch(trx, t, CLICK);
    if (row) await recordEvent(trx, row.account_id, 'email.clicked', { ...eventData(row), url }, row.subscriber_id);
    return url;
  });
}

function eventData(row: Touched) {
  return { ...row.source, subscriber: { id: row.subscriber_id, email: row.email }, message_id: row.message_id };
}

async function storedLink(trx: Db, t: TrackTarget, idx: number): Promise<string | undefined> {
  if ('campaign_id' in t) {
    const row = await trx.selectFrom('campaign_links').select('url').where('campaign_id', '=', t.campaign_id).where('idx', '=', idx).executeTakeFirst();
    return row?.url;
  }
  const row = await trx
    .selectFrom('automation_emails as e')
    .innerJoin('automation_links as l', (j) => j.onRef('l.automation_id', '=', 'e.automation_id').onRef('l.links_key', '=', 'e.links_key'))
    .select('l.url')
    .where('e.id', '=', t.automation_email_id)
    .where('l.idx', '=', idx)
    .executeTakeFirst();
  return row?.url;
}

async function touch(trx: Db, t: TrackTarget, changes: Changes): Promise<Touched | undefined> {
  if ('campaign_id' in t) {
    // 'sending' and 'interrupted' too: the token only exists in a message handed to the mail server, and
    // the send lanes record the server's answers a batch at a time, so an open can come first
    const r = await sql<{ account_id: string; email: string; message_id: string | null }>`
      update campaign_recipients r set ${changes}
      from accounts a
      where r.campaign_id = ${t.campaign_id}::uuid and r.subscriber_id = ${t.subscriber_id}::uuid
        and r.state in ('sending', 'sent', 'interrupted') and a.id = r.account_id and a.tracking_enabled
      returning r.account_id, r.email, r.message_id`.execute(trx);
    const row = r.rows[0];
    return row && { ...row, subscriber_id: t.subscriber_id, source: { campaign_id: t.campaign_id } };
  }
  // any state but 'failed': the token only exists in a message handed to the mail server, and the open
  // can arrive before the run has recorded the server's answer (or after a crash left it 'interrupted')
  const r = await sql<{ account_id: string; subscriber_id: string; email: string; message_id: string | null; automation_id: string; step: string; run_id: string }>`
    update automation_emails e set ${changes}
    from accounts a, subscribers s
    where e.id = ${t.automation_email_id}::uuid and e.state <> 'failed'
      and a.id = e.account_id and a.tracking_enabled and s.id = e.subscriber_id
    returning e.account_id, e.subscriber_id, s.email, e.message_id, e.automation_id, e.step, e.run_id`.execute(trx);
  const row = r.rows[0];
  return row && { ...row, source: { automation_id: row.automation_id, step: row.step, run_id: row.run_id } };
}
