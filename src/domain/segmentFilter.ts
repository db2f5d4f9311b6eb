// The segment rule tree (DESIGN §4) and its compilation to a parameterised WHERE on `subscribers`.
// Never raw SQL from users: fields and operators come from whitelists, values are bound parameters.
// CONTRACT (used by campaigns' audience and automations' condition step):
//   SegmentFilter       zod schema of {match:'all'|'any', rules:[rule|group…]}
//   whereMatches(f)     (eb) => Expression<SqlBool> over the table `subscribers` (no alias)
// campaign_opened / campaign_clicked read the events log: email.opened / email.clicked rows whose
// data->>'campaign_id' names the campaign.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { z } from 'zod';
import type { DB } from '../db/schema.ts';

export type Rule = { field: string; operator: string; value?: unknown };
export type Filter = { match: 'all' | 'any'; rules: (Rule | Filter)[] };

export const SegmentFilter: z.ZodType<Filter> = z.lazy(() =>
  z.object({ match: z.enum(['all', 'any']), rules: z.array(z.union([z.object({ field: z.string(), operator: z.string(), value: z.unknown().optional() }), SegmentFilter])) }),
) as z.ZodType<Filter>;

export function whereMatches(_filter: Filter): (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool> {
  throw new Error('segment filters are not built yet');
}
