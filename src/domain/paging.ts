// The page/per_page query every list of ours takes: page ≥ 1 (default 1), per_page ≥ 1
// (default 25, larger values clamped to 100, not rejected). Coerces, so REST query strings parse too.
import { z } from 'zod';

const positive = (what: string) =>
  z.coerce.number({ error: `${what} must be a positive integer` }).int(`${what} must be a positive integer`).min(1, `${what} must be a positive integer`);

export const PageQuery = z.object({
  page: positive('page').default(1),
  per_page: positive('per_page').default(25).transform((n) => Math.min(n, 100)),
});
export type PageQuery = z.input<typeof PageQuery>;
export type Paging = z.output<typeof PageQuery>;

export const offsetOf = (p: Paging) => (p.page - 1) * p.per_page;
