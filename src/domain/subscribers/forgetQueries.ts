// SQL of forgetting an address: the erasures forget runs itself (the outbox, old event payloads) and the
// suppression list of salted hashes it leaves behind. accountId always.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

/** Events whose payload names the address (lower-cased and trimmed by the caller). */
export async function deleteEventsNaming(db: Db, accountId: string, lowerEmail: string): Promise<void> {
  await db
    .deleteFrom('events')
    .where('account_id', '=', accountId)
    .where(sql<string>`lower(data->'subscriber'->>'email')`, '=', lowerEmail)
    .execute();
}

/** Captured mail to the address: to_addr is "Name <email>" or the bare address. */
export async function deleteOutboxMail(db: Db, accountId: string, lowerEmail: string): Promise<void> {
  await db
    .deleteFrom('outbox')
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['to_addr']), '=', lowerEmail),
        eb(sql<string>`right(lower(to_addr), ${lowerEmail.length + 2})`, '=', `<${lowerEmail}>`),
      ]),
    )
    .execute();
}

export async function insertSuppression(db: Db, accountId: string, emailHash: string, reason: string): Promise<void> {
  await db
    .insertInto('suppressions')
    .values({ account_id: accountId, email_hash: emailHash, reason })
    // an address on the list as a manual entry keeps its text there: forgetting it drops that too
    .onConflict((oc) => oc.columns(['account_id', 'email_hash']).doUpdateSet({ email: null, reason }))
    .execute();
}

/** The hashes among `hashes` that the account has suppressed. */
export async function suppressedHashes(db: Db, accountId: string, hashes: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('suppressions')
    .select('email_hash')
    .where('account_id', '=', accountId)
    .where('email_hash', 'in', hashes)
    .execute();
  return rows.map((r) => r.email_hash);
}
