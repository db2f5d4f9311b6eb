// Direct row access for tests: seed what no public route creates yet (groups, notes) and read back
// what a request must have written (events, memberships) or removed.
import type { Db } from '../../src/db/client.ts';

export async function createGroup(db: Db, accountId: string, name: string): Promise<string> {
  const row = await db
    .insertInto('groups')
    .values({ account_id: accountId, name })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addNote(db: Db, accountId: string, subscriberId: string, content: string): Promise<string> {
  const row = await db
    .insertInto('subscriber_notes')
    .values({ account_id: accountId, subscriber_id: subscriberId, content })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The secret in the account's bounce-report URLs (/hooks/bounces/{provider}/{secret}). */
export async function bounceSecretOf(db: Db, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('accounts')
    .select('bounce_secret')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.bounce_secret;
}

export async function statusOf(db: Db, accountId: string, email: string): Promise<string> {
  const row = await db
    .selectFrom('subscribers')
    .select('status')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** The account's events in the order they were written. */
export function eventsOf(db: Db, accountId: string) {
  return db
    .selectFrom('events')
    .select(['type', 'subscriber_id', 'data'])
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .execute();
}

export async function eventTypes(db: Db, accountId: string): Promise<string[]> {
  return (await eventsOf(db, accountId)).map((e) => e.type);
}

export async function groupIdsOf(db: Db, subscriberId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('subscriber_groups')
    .select('group_id')
    .where('subscriber_id', '=', subscriberId)
    .execute();
  return rows.map((r) => r.group_id).sort();
}

export async function countRows(
  db: Db,
  table: 'events' | 'subscriber_groups' | 'subscriber_notes' | 'subscribers',
  subscriberId: string,
): Promise<number> {
  const column = table === 'subscribers' ? 'id' : 'subscriber_id';
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column as any, '=', subscriberId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
