// The paging arguments and meta every MCP list tool shares:
// page defaults to 1, per_page to 25 with a max of 100 — larger values are clamped, not rejected.
// Spread PageArgs into a tool's z.object({...PageArgs, ...}) and return listMeta(...) as meta.
import { z } from 'zod';
import type { Page } from '../../domain/paging.ts';
import type { ListMeta } from './tool.ts';

export const MAX_PER_PAGE = 100;

export const PageArgs = {
  page: z
    .number({ error: 'page must be a positive integer' })
    .int('page must be a positive integer')
    .min(1, 'page must be a positive integer')
    .default(1)
    .describe('Page number, starting at 1 (default 1).'),
  per_page: z
    .number({ error: 'per_page must be a positive integer' })
    .int('per_page must be a positive integer')
    .min(1, 'per_page must be a positive integer')
    .default(25)
    .transform((n) => Math.min(n, MAX_PER_PAGE))
    .describe('Items per page (default 25, max 100; larger values are clamped to 100).'),
};

/** meta for a list tool; last_page is at least 1 so an empty list still has one (empty) page. */
export function listMeta(page: number, perPage: number, total: number): ListMeta {
  return { current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total };
}

/** Rows to skip for a page (for .offset()). */
export function offsetOf(page: number, perPage: number): number {
  return (page - 1) * perPage;
}

/** A domain Page as a list tool's meta. */
export function metaOf(p: Page<unknown>): ListMeta {
  return listMeta(p.page, p.per_page, p.total);
}
