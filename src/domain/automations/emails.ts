// The emails that automation runs send, as tracked rows (automation_emails, one per run and step) and the
// link sets of their templates (automation_links): what a send_email step needs to carry the same open
// pixel and click redirects as campaign emails, and what automation stats read off them.
// Rows are written in the run's own transactions (runs.ts); engagement.ts counts opens and clicks,
// bounces.ts bounces and complaints, unsubscribe.ts unsubscribes, on the same rows.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { AutomationEmailState, RunRow } from '../../db/schema/automations.ts';
import { extractLinks } from '../../mail/tracking.ts';
import { NO_ENGAGEMENT, type Engagement } from '../campaigns/stats.ts';
import * as queries from './queries.ts';

export interface TrackedEmail {
  /** automation_emails.id: what the email's tracking token names */
  id: string;
  /** the template's trackable links; link i is rewritten to `{click base}/i` */
  links: string[];
}

/**
 * Called in the transaction that marks the step 'sending': stores the template's links under its content
 * key (when the account tracks) and the email's row, which a 4xx retry of the same step reuses, so the
 * retried message carries the same token.
 */
export async function begin(
  trx: Db,
  run: RunRow,
  step: string,
  html: string,
  tracked: boolean,
  messageId: string,
): Promise<TrackedEmail> {
  const links = tracked ? extractLinks(html) : [];
  const key = links.length > 0 ? linksKey(links) : null;
  if (key) await queries.insertLinks(trx, run.automation_id, key, links);
  const id = await queries.upsertEmail(trx, {
    account_id: run.account_id,
    automation_id: run.automation_id,
    run_id: run.id,
    step,
    subscriber_id: run.subscriber_id,
    links_key: key,
    message_id: messageId,
  });
  return { id, links };
}

/** The email's outcome: sent (with the message id the server took), failed, or still to be retried ('sending'). */
export async function finish(trx: Db, id: string, state: AutomationEmailState, messageId?: string): Promise<void> {
  await queries.updateEmail(trx, id, {
    state,
    ...(state === 'sent' && { sent_at: new Date(), ...(messageId && { message_id: messageId }) }),
  });
}

/** A run found mid-send after a crash: its email may or may not have reached the mail server. */
export async function interrupt(trx: Db, runId: string, step: string): Promise<void> {
  await queries.interruptEmail(trx, runId, step);
}

/** What automation stats read off the emails' rows: counted the way campaign stats count the ledger. */
export type EmailStats = Engagement;

export const NO_EMAIL_STATS: EmailStats = NO_ENGAGEMENT;

/** Per automation, read from its email rows (one aggregate, as campaign stats are). */
export async function emailStats(db: Db, accountId: string, automationIds: string[]): Promise<Map<string, EmailStats>> {
  if (automationIds.length === 0) return new Map();
  const rows = await queries.emailCounts(db, accountId, automationIds);
  return new Map(rows.map(({ automation_id, ...e }) => [automation_id, e]));
}

/**
 * The content key of a link set: the same links (in the same order) share one set, and an edited template
 * with other links gets a new one, so an email sent before the edit still redirects where it pointed.
 */
function linksKey(links: string[]): string {
  const h = createHash('md5').update(JSON.stringify(links)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
