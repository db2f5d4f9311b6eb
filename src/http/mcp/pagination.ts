// The paging arguments and meta every MCP list tool shares: the domain's page rule (page defaults to 1,
// per_page to 25, larger values clamped to 100) as plain JSON numbers, described for agents.
// Spread PageArgs into a tool's z.object({...PageArgs, ...}) and return listResult(page).
import { pageFields, type Page } from '../../domain/paging.ts';
import type { ListMeta } from './tool.ts';

const paging = pageFields({ coerce: false });

export const PageArgs = {
  page: paging.page.describe('Page number, starting at 1 (default 1).'),
  per_page: paging.per_page.describe('Items per page (default 25, max 100; larger values are clamped to 100).'),
};

/** A domain Page as a list tool's meta; last_page is at least 1 so an empty list still has one (empty) page. */
export function metaOf(p: Page<unknown>): ListMeta {
  return {
    current_page: p.page,
    last_page: Math.max(1, Math.ceil(p.total / p.per_page)),
    per_page: p.per_page,
    total: p.total,
  };
}

/** A list tool's result: the page's items as data and where it is as meta. */
export function listResult<T>(page: Page<T>): { data: T[]; meta: ListMeta } {
  return { data: page.items, meta: metaOf(page) };
}
