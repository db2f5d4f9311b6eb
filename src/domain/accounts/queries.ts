// SQL for accounts, dashboard users and their memberships: one function per query. API keys are in
// keyQueries.ts, dashboard sessions in sessionQueries.ts.
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { AccountsTable, MembershipsTable, UsersTable } from '../../db/schema.ts';

type Role = MembershipsTable['role'];

const USER_COLUMNS = ['id', 'idp_user_id', 'email', 'name'] as const;

/** idp_user_id of an account's service owner (accounts.serviceOwner): a user that no person signs in as. */
export const SERVICE_IDP_PREFIX = 'service|';

// ---- accounts ----

export function insertAccount(db: Db, values: Insertable<AccountsTable>) {
  return db.insertInto('accounts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findAccount(db: Db, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateAccount(db: Db, id: string, changes: Updateable<AccountsTable>) {
  return db.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export function listAccounts(db: Db) {
  return db.selectFrom('accounts').selectAll().orderBy('created_at').execute();
}

// ---- users ----

/** Whether anyone can sign in yet: service owners of operator-made accounts do not count. */
export async function hasUsers(db: Db): Promise<boolean> {
  const person = await db
    .selectFrom('users')
    .select('id')
    .where('idp_user_id', 'not like', `${SERVICE_IDP_PREFIX}%`)
    .limit(1)
    .executeTakeFirst();
  return person !== undefined;
}

/** Serialises "the first user of the instance": a second caller waits, then sees the first one's user. */
export async function lockFirstOwner(db: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('mailgrove.first_owner'))`.execute(db);
}

// lower(email) on both sides: an address is one user whatever its spelling
export function userByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

/** Like userByEmail, but never a service owner: no one signs in as one. */
export function personByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('idp_user_id', 'not like', `${SERVICE_IDP_PREFIX}%`)
    .executeTakeFirst();
}

export function userWithPasswordByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export function userByIdp(db: Db, idpUserId: string) {
  return db.selectFrom('users').select(USER_COLUMNS).where('idp_user_id', '=', idpUserId).executeTakeFirst();
}

export function insertUser(db: Db, values: Insertable<UsersTable>) {
  return db.insertInto('users').values(values).returning(USER_COLUMNS).executeTakeFirstOrThrow();
}

/** Gives the `local|` user with this email and no password the provider's identity; undefined when there is none. */
export function linkToIdp(db: Db, email: string, idpUserId: string, name: string | undefined) {
  return db
    .updateTable('users')
    .set({ idp_user_id: idpUserId, ...(name ? { name } : {}) })
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('idp_user_id', 'like', 'local|%')
    .where('password_hash', 'is', null)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
}

export function passwordHashOf(db: Db, userId: string) {
  return db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
}

export async function setPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** undefined for an unknown email, and for a service owner: no one signs in as one. */
export function setPasswordByEmail(db: Db, email: string, passwordHash: string) {
  return db
    .updateTable('users')
    .set({ password_hash: passwordHash })
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('idp_user_id', 'not like', `${SERVICE_IDP_PREFIX}%`)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
}

// ---- memberships ----

/** undefined = the user is already a member of the account */
export function insertMembership(db: Db, accountId: string, userId: string, role: Role) {
  return db
    .insertInto('memberships')
    .values({ account_id: accountId, user_id: userId, role })
    .onConflict((oc) => oc.doNothing())
    .returning(['role', 'created_at'])
    .executeTakeFirst();
}

export function roleIn(db: Db, userId: string, accountId: string) {
  return db
    .selectFrom('memberships')
    .select('role')
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** The account's first owner, the user a key created without one is filed under; null: no such account. */
export async function firstOwner(db: Db, accountId: string): Promise<string | null> {
  const m = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .executeTakeFirst();
  return m?.user_id ?? null;
}

/** Locks the owners' memberships: two removals at once cannot both pass the last-owner check. */
/** The owners a person can sign in as (the service owner is not one), locked against a concurrent removal. */
export async function lockOwners(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('memberships.user_id')
    .where('memberships.account_id', '=', accountId)
    .where('memberships.role', '=', 'owner')
    .where((eb) =>
      eb.or([eb('users.idp_user_id', 'is', null), eb('users.idp_user_id', 'not like', `${SERVICE_IDP_PREFIX}%`)]),
    )
    .forUpdate('memberships')
    .execute();
  return rows.map((r) => r.user_id);
}

/** The membership with its new role; undefined when the user is not a member of the account. */
export function setRole(db: Db, accountId: string, userId: string, role: Role) {
  return db
    .updateTable('memberships')
    .set({ role })
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .returning(['role', 'created_at'])
    .executeTakeFirst();
}

/** How many memberships went (0 or 1). */
export async function deleteMembership(db: Db, accountId: string, userId: string): Promise<number> {
  const removed = await db
    .deleteFrom('memberships')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(removed.numDeletedRows);
}

export function membershipsOf(db: Db, userId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.name as account_name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('a.name')
    .execute();
}

export function members(db: Db, accountId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.idp_user_id', 'u.email', 'u.name', 'm.role', 'm.created_at as joined_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('m.created_at')
    .execute();
}
