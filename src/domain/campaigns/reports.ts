// What a campaign's send looks like from outside: progress while sending, the report afterwards (stats,
// opens and clicks per hour, clicks per link, by email client and device) and the recipient list as a CSV export. Every function
// checks the campaign is the account's first, so another account's id is NotFound.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import { find } from './campaigns.ts';
import * as q from './reportQueries.ts';
import * as campaignStats from './stats.ts';
import { csvCell } from '../csv.ts';

export async function progress(db: Db, accountId: string, id: string) {
  const c = await find(db, accountId, id);
  const [counts, deferredBy] = await Promise.all([q.progress(db, accountId, id), q.deferredBy(db, accountId, id)]);
  // deferred_by: providers that asked us to slow down, whose recipients wait in the queue until then
  return { status: c.status, ...counts, deferred_by: deferredBy };
}

/**
 * Each tracked link with its total and unique clicks (links nobody clicked included, 0). link_id is the
 * link's index in the campaign's stored links, fixed once sending started: the id of its clicker list.
 */
export async function links(db: Db, accountId: string, id: string) {
  await find(db, accountId, id);
  const { links, clicks } = await q.linkClicks(db, accountId, id);
  const byUrl = new Map(clicks.map((c) => [c.url, c]));
  const seen = new Set<string>();
  return links.flatMap(({ idx, url }) => {
    if (seen.has(url)) return [];
    seen.add(url);
    const c = byUrl.get(url);
    return [{ link_id: String(idx), url, clicks: c?.clicks ?? 0, unique_clicks: c?.unique_clicks ?? 0 }];
  });
}

export interface ClientRow {
  name: string;
  opens: number;
  clicks: number;
}
export interface DeviceRow {
  type: string;
  opens: number;
  clicks: number;
}

/**
 * Who opened and clicked, by email client and by device: each recipient a person opened or clicked counts
 * once, under the client and device of their first open or click (feedback/mailClients.ts). Privacy-proxy
 * loads count nowhere. Most opens first.
 */
export async function clients(db: Db, accountId: string, id: string) {
  await find(db, accountId, id);
  return clientBreakdown(await q.clientCounts(db, accountId, id));
}

function clientBreakdown(rows: { client: string; device: string; opens: number; clicks: number }[]) {
  const byClient = new Map<string, ClientRow>();
  const byDevice = new Map<string, DeviceRow>();
  for (const r of rows) {
    const c = byClient.get(r.client) ?? byClient.set(r.client, { name: r.client, opens: 0, clicks: 0 }).get(r.client)!;
    const d = byDevice.get(r.device) ?? byDevice.set(r.device, { type: r.device, opens: 0, clicks: 0 }).get(r.device)!;
    for (const row of [c, d]) {
      row.opens += r.opens;
      row.clicks += r.clicks;
    }
  }
  const order = <T extends { opens: number; clicks: number }>(a: T, b: T) => b.opens - a.opens || b.clicks - a.clicks;
  const named = (a: ClientRow, b: ClientRow) => order(a, b) || a.name.localeCompare(b.name);
  const typed = (a: DeviceRow, b: DeviceRow) => order(a, b) || a.type.localeCompare(b.type);
  return { clients: [...byClient.values()].sort(named), devices: [...byDevice.values()].sort(typed) };
}

export async function report(db: Db, accountId: string, id: string) {
  const c = await find(db, accountId, id);
  const [stats, timeline, linkList, clientRows] = await Promise.all([
    campaignStats.of(db, accountId, [id]),
    q.timeline(db, accountId, id),
    links(db, accountId, id),
    q.clientCounts(db, accountId, id),
  ]);
  const s = stats.get(id) ?? campaignStats.EMPTY;
  return {
    stats: {
      sent: s.sent,
      opens: s.opens,
      unique_opens: s.unique_opens,
      clicks: s.clicks,
      unique_clicks: s.unique_clicks,
      unsubscribes: s.unsubscribes,
      bounces: s.bounces,
      complaints: s.complaints,
      machine_opens: s.machine_opens,
      unique_human_opens: s.unique_human_opens,
    },
    timeline: timeline.map((t) => ({ at: new Date(t.at).toISOString(), opens: t.opens, clicks: t.clicks })),
    links: linkList,
    ...clientBreakdown(clientRows),
    /** how many of the audience were left out at the freeze for an address on the suppression list */
    suppressed_count: c.suppressed_count,
  };
}

/** The dashboard's recipient row: the ledger state, the SMTP reply of a failure, when it last changed. */
export async function recipientRows(db: Db, accountId: string, id: string, query: campaignStats.RecipientsQuery) {
  const c = await find(db, accountId, id);
  const page: Page<campaignStats.Recipient> = await campaignStats.recipients(db, accountId, id, query);
  return {
    ...page,
    items: page.items.map((r) => ({
      subscriber_id: r.subscriber.id,
      email: r.subscriber.email,
      state: r.state,
      // a row no server answered (a template error, a lost connection) shows what went wrong instead
      smtp_reply: r.smtp_reply ?? r.last_error,
      smtp_code: r.smtp_code,
      smtp_status: r.smtp_status,
      failure: r.failure,
      updated_at:
        latest([r.sent_at, r.opened_at, r.clicked_at, r.unsubscribed_at, r.bounced_at, r.complained_at]) ??
        c.started_at ??
        c.updated_at,
    })),
  };
}

export const CsvQuery = z.object({ filter: campaignStats.RecipientsQuery.shape.filter });
export type CsvQuery = z.input<typeof CsvQuery>;

const CSV_COLUMNS = [
  'email',
  'first_name',
  'last_name',
  'state',
  'sent_at',
  'opened_at',
  'clicked_at',
  'unsubscribed_at',
  'bounced_at',
  'complained_at',
  'smtp_reply',
  'smtp_code',
  'smtp_status',
  'failure',
] as const;
const BATCH = 2000;

/**
 * The campaign's recipients as CSV lines, read in keyset batches so a million rows stream in constant
 * memory. The campaign and the filter are checked before the first line, so those errors are still a 4xx.
 */
export async function recipientsCsv(db: Db, accountId: string, id: string, query: unknown) {
  const { filter } = parseInput(CsvQuery, query);
  await find(db, accountId, id);
  return (async function* () {
    yield CSV_COLUMNS.join(',') + '\r\n';
    for (let after = 0; ;) {
      const rows = await q.recipientBatch(db, accountId, id, filter, after, BATCH);
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.row_id;
      yield rows
        .map((r) => {
          // as on the dashboard's row: the server's reply, or what went wrong where no server answered
          const cells = { ...r, smtp_reply: r.smtp_reply ?? r.last_error } as Record<string, unknown>;
          return CSV_COLUMNS.map((k) => csvCell(cells[k])).join(',') + '\r\n';
        })
        .join('');
      if (rows.length < BATCH) return;
    }
  })();
}

function latest(dates: (Date | string | null)[]): Date | null {
  let best: Date | null = null;
  for (const d of dates) if (d && (!best || new Date(d) > best)) best = new Date(d);
  return best;
}
