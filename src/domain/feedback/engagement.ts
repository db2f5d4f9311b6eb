// Opens and clicks of tracked emails, campaign and automation emails alike. Each one
// counts on the email's own row (campaign_recipients or automation_emails: opens/clicks, first
// opened_at/clicked_at, which the stats read) and writes email.opened / email.clicked with subscriber_id
// set, naming where the email came from: {campaign_id} or {automation_id, step, run_id}. Segments and the
// campaign_opened / link_clicked triggers read data->>'campaign_id', so only campaign emails feed them.
// Nothing is recorded when the account has turned tracking off; the redirect still works. A campaign click
// also lands on campaign_link_clicks (who clicked which link, how often). A person's first open or click of
// a campaign email also names their email client and device on the ledger row (mailClients.ts), for the
// report's breakdown; a privacy proxy's load names none.
import type { Db } from '../../db/client.ts';
import type { TrackTarget } from '../../mail/tracking.ts';
import { recordEvent } from '../events/log.ts';
import { inTransaction } from '../transaction.ts';
import { mailClientOf } from './mailClients.ts';
import { isMachineOpen, type OpenRequest } from './machineOpens.ts';
import * as queries from './queries.ts';

/** The counted email: who it went to, and the event data naming its source. */
interface Touched {
  account_id: string;
  subscriber_id: string;
  email: string;
  message_id: string | null;
  source: Record<string, unknown>;
}

/**
 * Counts an open. A load by a privacy proxy (machineOpens.ts) is still an open, flagged: machine_opens on
 * a campaign's ledger row and `machine: true` on email.opened, so reports can leave it out.
 */
export async function recordOpen(db: Db, t: TrackTarget, from: OpenRequest = {}): Promise<boolean> {
  const machine = isMachineOpen(from);
  return inTransaction(db, async (trx) => {
    const row = await touch(trx, t, machine ? 'machine_open' : 'open', from.userAgent);
    if (!row) return false;
    const data = { ...eventData(row), ...(machine && { machine: true }) };
    await recordEvent(trx, row.account_id, 'email.opened', data, row.subscriber_id);
    return true;
  });
}

/** The stored URL of link `link` of the email (undefined: no such link), after counting the click. */
export async function recordClick(
  db: Db,
  t: TrackTarget,
  link: number,
  from: OpenRequest = {},
): Promise<string | undefined> {
  return inTransaction(db, async (trx) => {
    const url =
      'campaign_id' in t
        ? await queries.campaignLink(trx, t.campaign_id, link)
        : await queries.automationLink(trx, t.automation_email_id, link);
    if (url === undefined) return undefined;
    const row = await touch(trx, t, 'click', from.userAgent);
    if (!row) return url;
    if ('campaign_id' in t) await queries.countLinkClick(trx, row.account_id, t.campaign_id, link, t.subscriber_id);
    await recordEvent(trx, row.account_id, 'email.clicked', { ...eventData(row), url }, row.subscriber_id);
    return url;
  });
}

function eventData(row: Touched) {
  return { ...row.source, subscriber: { id: row.subscriber_id, email: row.email }, message_id: row.message_id };
}

async function touch(
  trx: Db,
  t: TrackTarget,
  kind: queries.Touch,
  userAgent: string | undefined,
): Promise<Touched | undefined> {
  if ('campaign_id' in t) {
    const seen = kind === 'machine_open' ? undefined : mailClientOf(userAgent);
    const row = await queries.touchCampaignEmail(trx, t.campaign_id, t.subscriber_id, kind, seen);
    return row && { ...row, subscriber_id: t.subscriber_id, source: { campaign_id: t.campaign_id } };
  }
  const row = await queries.touchAutomationEmail(trx, t.automation_email_id, kind);
  return row && { ...row, source: { automation_id: row.automation_id, step: row.step, run_id: row.run_id } };
}
