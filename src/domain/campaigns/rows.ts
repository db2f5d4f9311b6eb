// Campaigns as the dashboard lists and edits them: each row with its audience by name and its rates,
// and the full campaign with what its author wrote (content_format, content_source). One query per
// page for the campaigns, one aggregate of the ledger for their stats (stats.ts), one for the names.
import type { Db } from '../../db/client.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import { pageOf, offsetOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import * as abTests from './abTests.ts';
import { find, ListQuery } from './campaigns.ts';
import * as queries from './queries.ts';
import { audienceNames } from './reportQueries.ts';
import * as campaignStats from './stats.ts';

export interface ListRow {
  id: string;
  name: string;
  subject: string | null;
  status: CampaignRow['status'];
  content_format: CampaignRow['content_format'];
  group_ids: string[];
  segment_ids: string[];
  /** names of the groups and segments, in that order; a deleted one is left out */
  audience: string[];
  /** the frozen audience, once the send has started (a scheduled campaign freezes it when it starts) */
  recipients: number | null;
  sent: number;
  unique_opens: number;
  unique_clicks: number;
  /** of sent, 0..1; null before anything was sent */
  open_rate: number | null;
  click_rate: number | null;
  created_at: Date;
  scheduled_at: Date | null;
  sent_at: Date | null;
}

export interface Detail extends ListRow {
  from_name: string | null;
  from_email: string | null;
  reply_to: string | null;
  preview_text: string | null;
  content_html: string | null;
  content_source: string | null;
  plain_text: string | null;
  /** what the editor sends back as expected_updated_at, so a save over another tab's is refused */
  updated_at: Date;
  /** the A/B test with each variant's results, the winner and the confidence note (abTests.view) */
  ab_test: abTests.AbTestView | null;
  paused_at: Date | null;
  /** the campaign this one resends to its non-openers */
  resend_of: string | null;
  track_opens: boolean;
  track_clicks: boolean;
}

/** The dashboard's campaign list: newest first, filtered by status, paged like list(). */
export async function page(db: Db, accountId: string, query: unknown): Promise<Page<ListRow>> {
  const q = parseInput(ListQuery, query);
  const { rows, total } = await queries.campaignPage(db, accountId, q.status, q.per_page, offsetOf(q));
  return pageOf(await listRows(db, accountId, rows), q, total);
}

export async function detail(db: Db, accountId: string, id: string): Promise<Detail> {
  const row = await find(db, accountId, id);
  const [listed] = await listRows(db, accountId, [row]);
  return {
    ...listed!,
    from_name: row.from_name,
    from_email: row.from_email,
    reply_to: row.reply_to,
    preview_text: row.preview_text,
    content_html: row.content_html,
    content_source: row.content_source ?? row.content_html,
    plain_text: row.content_text,
    updated_at: row.updated_at,
    ab_test: await abTests.view(db, row),
    paused_at: row.paused_at,
    resend_of: row.resend_of,
    track_opens: row.track_opens,
    track_clicks: row.track_clicks,
  };
}

/** Campaigns as list rows; `known` holds stats the caller has read already (the overview's, with its rates). */
export async function listRows(
  db: Db,
  accountId: string,
  rows: CampaignRow[],
  known?: Map<string, campaignStats.Stats>,
): Promise<ListRow[]> {
  const [stats, names] = await Promise.all([
    known ??
      campaignStats.of(
        db,
        accountId,
        rows.map((r) => r.id),
      ),
    audienceNames(
      db,
      accountId,
      [...new Set(rows.flatMap((r) => r.group_ids))],
      [...new Set(rows.flatMap((r) => r.segment_ids))],
    ),
  ]);
  return rows.map((r) => {
    const s = stats.get(r.id) ?? campaignStats.EMPTY;
    return {
      id: r.id,
      name: r.name,
      subject: r.subject,
      status: r.status,
      content_format: r.content_format,
      group_ids: r.group_ids,
      segment_ids: r.segment_ids,
      audience: [...r.group_ids, ...r.segment_ids].flatMap((id) => names.get(id) ?? []),
      recipients: r.started_at ? s.recipients : null,
      sent: s.sent,
      unique_opens: s.unique_opens,
      unique_clicks: s.unique_clicks,
      // opens people made: a privacy proxy's pixel load says the email arrived, not that it was read
      open_rate: s.sent > 0 ? s.unique_human_opens / s.sent : null,
      click_rate: s.sent > 0 ? s.unique_clicks / s.sent : null,
      created_at: r.created_at,
      scheduled_at: r.scheduled_at,
      sent_at: r.started_at,
    };
  });
}
