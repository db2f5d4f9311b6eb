// The editor's "Preview as" search: any subscriber of the account found by a search of their email or
// name — not only the first page of the list.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { parseInput } from '../validation.ts';

export const SearchQuery = z.object({
  search: z.string().trim().max(254).optional(),
});

/** Up to 20 subscribers whose email or name matches, for the preview's subscriber picker. */
export async function previewCandidates(db: Db, accountId: string, query: unknown) {
  const q = parseInput(SearchQuery, query);
  const page = await subscribers.list(db, accountId, { search: q.search ?? '', per_page: 20, page: 1 });
  return page.items.map((s) => ({ id: s.id, email: s.email, first_name: s.first_name, last_name: s.last_name }));
}
