// The evidence behind a campaign's report: how each mail provider treated it (sent, deferred, bounced,
// opened, clicked, failed per provider and recipient domain) and who clicked each link. Every function
// checks the campaign is the account's first, so another account's id is NotFound.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { offsetOf, pageFields, pageOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import { find } from './campaigns.ts';
import * as q from './evidenceQueries.ts';
import { knownProviderOf } from '../../mail/providers.ts';

export const LINK_NOT_FOUND = 'Link not found';

type DomainRow = Awaited<ReturnType<typeof q.byDomain>>[number];
type Counts = Omit<DomainRow, 'domain'>;
export interface ProviderRow extends Counts {
  provider: string;
  domains: DomainRow[];
}

const COUNTS: (keyof Counts)[] = [
  'recipients',
  'sent',
  'deferred',
  'failed',
  'bounced',
  'opened',
  'human_opened',
  'clicked',
];

/**
 * The ledger per provider, largest first; inside each, its domains, largest first. The big providers are
 * known by their domains (providers.ts); any other domain is a provider of its own. No DNS lookups here:
 * a report must not wait on MX answers, so a Workspace domain shows as itself, not as google.
 */
export async function providers(db: Db, accountId: string, id: string): Promise<ProviderRow[]> {
  await find(db, accountId, id);
  const byProvider = new Map<string, ProviderRow>();
  for (const row of await q.byDomain(db, accountId, id)) {
    const name = knownProviderOf(row.domain) ?? row.domain;
    let p = byProvider.get(name);
    if (!p) byProvider.set(name, (p = { provider: name, ...zero(), domains: [] }));
    for (const k of COUNTS) p[k] += row[k];
    p.domains.push(row);
  }
  const largest = (a: { recipients: number }, b: { recipients: number }) => b.recipients - a.recipients;
  const list = [...byProvider.values()].sort((a, b) => largest(a, b) || a.provider.localeCompare(b.provider));
  for (const p of list) p.domains.sort((a, b) => largest(a, b) || a.domain.localeCompare(b.domain));
  return list;
}

function zero(): Counts {
  return Object.fromEntries(COUNTS.map((k) => [k, 0])) as unknown as Counts;
}

export const LinkRecipientsQuery = z.object(pageFields());
export type LinkRecipientsQuery = z.input<typeof LinkRecipientsQuery>;

export interface LinkClicker {
  subscriber_id: string;
  email: string;
  first_clicked_at: Date;
  last_clicked_at: Date;
  clicks: number;
}

/**
 * Who clicked link `linkId` (a link_id of the campaign's link list), first clicker first. A link_id that is
 * not a small non-negative integer, or not a link of this campaign, is NotFound.
 */
export async function linkRecipients(
  db: Db,
  accountId: string,
  id: string,
  linkId: string,
  query: unknown,
): Promise<Page<LinkClicker>> {
  await find(db, accountId, id);
  if (!/^\d{1,9}$/.test(linkId)) throw new NotFound(LINK_NOT_FOUND);
  const idx = Number(linkId);
  if (!(await q.linkExists(db, id, idx))) throw new NotFound(LINK_NOT_FOUND);
  const p = parseInput(LinkRecipientsQuery, query);
  const { rows, total } = await q.linkClickers(db, accountId, id, idx, p.per_page, offsetOf(p));
  return pageOf(rows, p, total);
}
