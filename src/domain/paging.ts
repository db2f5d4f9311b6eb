// The one page/per_page rule every list follows, REST query strings and MCP arguments alike: page ≥ 1
// (default 1), per_page ≥ 1 (default 25; larger values are clamped to 100, not rejected), and the one
// shape every list comes back in, Page<T>. Faces format a Page once each: REST as `pagination`
// (http/rest/envelope.ts), MCP as `meta` (http/mcp/pagination.ts).
import { z } from 'zod';
import { parseInput } from './validation.ts';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

const positive = (what: string, coerce: boolean) =>
  (coerce
    ? z.coerce.number({ error: `${what} must be a positive integer` })
    : z.number({ error: `${what} must be a positive integer` })
  )
    .int(`${what} must be a positive integer`)
    .min(1, `${what} must be a positive integer`);

/** The page and per_page fields; `coerce` for query strings (REST), plain numbers for JSON arguments (MCP). */
export function pageFields({ coerce = true, defaultPerPage = DEFAULT_PER_PAGE } = {}) {
  return {
    page: positive('page', coerce).default(1),
    per_page: positive('per_page', coerce)
      .default(defaultPerPage)
      .transform((n) => Math.min(n, MAX_PER_PAGE)),
  };
}

export const PageQuery = z.object(pageFields());
export type PageQuery = z.input<typeof PageQuery>;
export type Paging = z.output<typeof PageQuery>;

export const offsetOf = (p: Paging) => (p.page - 1) * p.per_page;

/** One page of a list: the items, where it is, and how many there are in all. */
export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

export function pageOf<T>(items: T[], p: Paging, total: number): Page<T> {
  return { items, page: p.page, per_page: p.per_page, total };
}

/** The query of a short list read whole (custom fields, warm-up plans, accounts, …): 100 a page by default. */
export const WholeListQuery = z.object(pageFields({ defaultPerPage: MAX_PER_PAGE }));

/**
 * One page of a short list its context reads whole: the page rule applied in memory, so such a list
 * answers in the shape of every other list. With the default of 100 a page, one page is usually all.
 */
export function pageOfWhole<T>(items: T[], query: unknown): Page<T> {
  const p = parseInput(WholeListQuery, query);
  return pageOf(items.slice(offsetOf(p), offsetOf(p) + p.per_page), p, items.length);
}
