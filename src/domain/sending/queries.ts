// SQL of sending domains: one row per account and domain, with the account's own DKIM key for it.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { DomainCheck, SendingDomainRow, SendingDomainStatus } from '../../db/schema/sending.ts';

const domains = ownedRows('sending_domains');

export type DomainRow = SendingDomainRow;

export interface NewDomainRow {
  account_id: string;
  domain: string;
  selector: string;
  public_key: string;
  private_key_sealed: string;
}

/** The new row, or undefined when the account has that domain already. */
export function insertDomain(db: Db, row: NewDomainRow): Promise<DomainRow | undefined> {
  return db
    .insertInto('sending_domains')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'domain']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findDomain(db: Db, accountId: string, id: string): Promise<DomainRow | undefined> {
  return domains.find(db, accountId, id);
}

export function listDomains(db: Db, accountId: string): Promise<DomainRow[]> {
  return db.selectFrom('sending_domains').selectAll().where('account_id', '=', accountId).orderBy('domain').execute();
}

/** The account's rows for any of these domains (a From domain and its organisational domain). */
export function domainsNamed(db: Db, accountId: string, names: string[]): Promise<DomainRow[]> {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('domain', 'in', names)
    .execute();
}

export function removeDomain(db: Db, accountId: string, id: string): Promise<{ id: string } | undefined> {
  return domains.remove(db, accountId, id);
}

export function saveCheck(
  db: Db,
  accountId: string,
  id: string,
  result: { status: SendingDomainStatus; checks: DomainCheck[]; verified: boolean },
): Promise<DomainRow | undefined> {
  return db
    .updateTable('sending_domains')
    .set({
      status: result.status,
      checks: JSON.stringify(result.checks),
      checked_at: sql<Date>`now()`,
      ...(result.verified && { verified_at: sql<Date>`coalesce(verified_at, now())` }),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims up to `limit` domains not checked for `olderThanMs` (or never) by moving their checked_at to now,
 * so another instance running the same re-check skips them.
 */
export async function claimDue(db: Db, olderThanMs: number, limit: number): Promise<DomainRow[]> {
  const cutoff = new Date(Date.now() - olderThanMs);
  const due = db
    .selectFrom('sending_domains')
    .select('id')
    .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', cutoff)]))
    .orderBy('checked_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable('sending_domains')
    .set({ checked_at: sql<Date>`now()` })
    .where('id', 'in', due)
    .returningAll()
    .execute();
}
