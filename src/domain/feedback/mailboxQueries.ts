// SQL of the bounce mailboxes (mailboxes.ts): an account's own mailbox, sealed, with what its last poll
// found, and the leases that let one instance at a time poll a mailbox.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';

export async function upsertMailbox(db: Db, accountId: string, urlSealed: string, host: string): Promise<void> {
  await db
    .insertInto('bounce_mailboxes')
    .values({ account_id: accountId, url_sealed: urlSealed, host })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        url_sealed: urlSealed,
        host,
        last_polled_at: null,
        last_error: null,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

export async function deleteMailbox(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('bounce_mailboxes').where('account_id', '=', accountId).execute();
}

export async function findMailbox(db: Db, accountId: string) {
  return db
    .selectFrom('bounce_mailboxes')
    .select(['host', 'last_polled_at', 'last_error'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Mailboxes not polled for `everyMs` (never polled first), at most `limit`. */
export async function dueMailboxes(db: Db, everyMs: number, limit: number) {
  return db
    .selectFrom('bounce_mailboxes')
    .select(['account_id', 'url_sealed'])
    .where((eb) =>
      eb.or([
        eb('last_polled_at', 'is', null),
        eb('last_polled_at', '<', sql<Date>`now() - ${everyMs} * interval '1 millisecond'`),
      ]),
    )
    .orderBy(sql`last_polled_at nulls first`)
    .limit(limit)
    .execute();
}

/** What a poll found; only while the mailbox is still the one polled (not replaced meanwhile). */
export async function recordPoll(db: Db, accountId: string, urlSealed: string, error: string | null): Promise<void> {
  await db
    .updateTable('bounce_mailboxes')
    .set({ last_polled_at: sql<Date>`now()`, last_error: error })
    .where('account_id', '=', accountId)
    .where('url_sealed', '=', urlSealed)
    .execute();
}

/** Takes the lease of a mailbox for `seconds` when it is free, expired or already ours; true when taken. */
export async function claimLease(db: Db, mailbox: string, holder: string, seconds: number): Promise<boolean> {
  const r = await sql<{ holder: string }>`
    insert into mailbox_leases (mailbox, holder, expires_at)
    values (${mailbox}, ${holder}::uuid, now() + ${seconds} * interval '1 second')
    on conflict (mailbox) do update set holder = excluded.holder, expires_at = excluded.expires_at
     where mailbox_leases.expires_at < now() or mailbox_leases.holder = excluded.holder
    returning holder`.execute(db);
  return r.rows.length > 0;
}

export async function releaseLease(db: Db, mailbox: string, holder: string): Promise<void> {
  await db.deleteFrom('mailbox_leases').where('mailbox', '=', mailbox).where('holder', '=', holder).execute();
}
