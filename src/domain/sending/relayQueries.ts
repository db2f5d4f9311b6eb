// SQL of an account's SMTP relays: one row per relay (its URL sealed) and one per From domain it carries,
// a domain carried by at most one relay of the account.
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { Insertable } from 'kysely';
import type { SmtpRelayRow, SmtpRelaysTable } from '../../db/schema/sending.ts';

const relays = ownedRows('smtp_relays');

export type RelayRow = SmtpRelayRow & { from_domains: string[] };

export type NewRelayRow = Omit<Insertable<SmtpRelaysTable>, 'id' | 'created_at'>;

/** The account's relays and the domains of each, by name. */
export async function listRelays(db: Db, accountId: string): Promise<RelayRow[]> {
  const [rows, domains] = await Promise.all([
    db.selectFrom('smtp_relays').selectAll().where('account_id', '=', accountId).orderBy('name').execute(),
    db
      .selectFrom('smtp_relay_domains')
      .select(['relay_id', 'domain'])
      .where('account_id', '=', accountId)
      .orderBy('domain')
      .execute(),
  ]);
  return rows.map((row) => ({
    ...row,
    from_domains: domains.filter((d) => d.relay_id === row.id).map((d) => d.domain),
  }));
}

export async function findRelay(db: Db, accountId: string, id: string): Promise<RelayRow | undefined> {
  const row = await relays.find(db, accountId, id);
  if (!row) return undefined;
  const domains = await db
    .selectFrom('smtp_relay_domains')
    .select('domain')
    .where('account_id', '=', accountId)
    .where('relay_id', '=', id)
    .orderBy('domain')
    .execute();
  return { ...row, from_domains: domains.map((d) => d.domain) };
}

/** The new row, or undefined when the account has a relay of that name (any case) already. */
export async function insertRelay(db: Db, row: NewRelayRow): Promise<SmtpRelayRow | undefined> {
  const taken = await db
    .selectFrom('smtp_relays')
    .select('id')
    .where('account_id', '=', row.account_id)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', row.name.toLowerCase()))
    .executeTakeFirst();
  if (taken) return undefined;
  return db.insertInto('smtp_relays').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Of these domains, those the account sends through one of its relays already, with that relay's name. */
export function domainsTaken(
  db: Db,
  accountId: string,
  domains: string[],
): Promise<{ domain: string; name: string }[]> {
  return db
    .selectFrom('smtp_relay_domains as d')
    .innerJoin('smtp_relays as r', 'r.id', 'd.relay_id')
    .select(['d.domain', 'r.name'])
    .where('d.account_id', '=', accountId)
    .where('d.domain', 'in', domains)
    .orderBy('d.domain')
    .execute();
}

export async function insertDomains(db: Db, accountId: string, relayId: string, domains: string[]): Promise<void> {
  await db
    .insertInto('smtp_relay_domains')
    .values(domains.map((domain) => ({ account_id: accountId, relay_id: relayId, domain })))
    .execute();
}

export function removeRelay(db: Db, accountId: string, id: string): Promise<{ id: string } | undefined> {
  return relays.remove(db, accountId, id);
}

/** The account's relay that carries mail from this domain, if any. */
export async function relayForDomain(db: Db, accountId: string, domain: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('smtp_relay_domains')
    .select('relay_id')
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row?.relay_id;
}

/** The sealed URL of the account's relay, if it exists. */
export async function sealedUrl(db: Db, accountId: string, id: string): Promise<string | undefined> {
  const row = await relays.find(db, accountId, id);
  return row?.url_sealed;
}
