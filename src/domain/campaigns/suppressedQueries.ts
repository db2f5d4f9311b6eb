// SQL of what the audience freeze leaves out for a suppressed address, counted for the campaign's report.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { SubscriberWhere } from './ledgerQueries.ts';

/**
 * How many active members of these groups or segments are already known to hold a suppressed address
 * (the check marked them): the part of the audience the freeze's anti-join leaves out. Driven by the
 * marked rows, which are few, so the EXISTS per row costs nothing.
 */
export async function knownSuppressed(
  db: Db,
  accountId: string,
  groupIds: string[],
  inSegments: SubscriberWhere | undefined,
): Promise<number> {
  if (groupIds.length === 0 && !inSegments) return 0;
  const r = await db
    .selectFrom('subscribers')
    .innerJoin('suppression_checks as c', 'c.subscriber_id', 'subscribers.id')
    .where('c.account_id', '=', accountId)
    .where('c.suppressed', '=', true)
    .where('subscribers.account_id', '=', accountId)
    .where('subscribers.status', '=', 'active')
    .where((eb) =>
      eb.or([
        ...(groupIds.length > 0
          ? [
              eb.exists(
                eb
                  .selectFrom('subscriber_groups')
                  .select(sql.lit(1).as('one'))
                  .whereRef('subscriber_groups.subscriber_id', '=', 'subscribers.id')
                  .where('subscriber_groups.group_id', 'in', groupIds),
              ),
            ]
          : []),
        ...(inSegments ? [inSegments(eb)] : []),
      ]),
    )
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
