// Dashboard users and their memberships: the first owner, password and OpenID Connect sign-in,
// team members and what each role may do. A user's identity is idp_user_id: `local|<uuid>` for built-in
// sign-in, the provider's `sub` for OIDC. Roles live in memberships, per account.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import * as password from './password.ts';
import type { Db } from '../../db/client.ts';
import type { MembershipsTable } from '../../db/schema.ts';
import { Conflict, NotFound, StateConflict, Validation } from '../errors.ts';
import { Email } from '../subscribers/subscribers.ts';
import { parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export type Role = MembershipsTable['role'];
export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const satisfies readonly Role[];

/** read: look at everything; edit: change subscribers, notes, imports; manage: API keys, settings, team. */
export type Permission = 'read' | 'edit' | 'manage';
const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['read', 'edit', 'manage'],
  admin: ['read', 'edit', 'manage'],
  editor: ['read', 'edit'],
  viewer: ['read'],
};
export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

export interface User {
  id: string;
  idp_user_id: string;
  email: string;
  name: string | null;
}
const USER_COLUMNS = ['id', 'idp_user_id', 'email', 'name'] as const;

const Password = z.string().min(password.MIN_LENGTH, `Password must be at least ${password.MIN_LENGTH} characters`).max(200);

export const NewOwner = z.object({
  account_name: z.string().trim().min(1, 'Account name is required').max(200),
  name: z.string().trim().max(200).optional(),
  email: Email,
  password: Password,
});
export type NewOwner = z.input<typeof NewOwner>;

export async function hasUsers(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** "Create the owner account": only while the instance has no users at all; a second attempt is a Conflict. */
export async function createOwner(db: Db, input: NewOwner, defaultLimit: number): Promise<{ user: User; accountId: string }> {
  const a = parseInput(NewOwner, input);
  const passwordHash = await password.hash(a.password); // ~50 ms of CPU: outside the transaction
  return createFirstUser(db, { account_name: a.account_name, email: a.email, name: a.name ?? null, idp_user_id: `local|${randomUUID()}`, password_hash: passwordHash }, defaultLimit);
}

async function createFirstUser(
  db: Db,
  u: { account_name: string; email: string; name: string | null; idp_user_id: string; password_hash: string | null },
  defaultLimit: number,
): Promise<{ user: User; accountId: string }> {
  return inTransaction(db, async (trx) => {
    // two first visits at once: the lock makes the second one see the first one's user and stop
    await sql`select pg_advisory_xact_lock(hashtext('mailgrove.first_owner'))`.execute(trx);
    if (await hasUsers(trx)) throw new Conflict('The owner account already exists; sign in instead');
    const account = await trx.insertInto('accounts').values({ name: u.account_name, subscriber_limit: defaultLimit }).returning('id').executeTakeFirstOrThrow();
    const user = await trx
      .insertInto('users')
      .values({ idp_user_id: u.idp_user_id, email: u.email, name: u.name, password_hash: u.password_hash })
      .returning(USER_COLUMNS)
      .executeTakeFirstOrThrow();
    await trx.insertInto('memberships').values({ account_id: account.id, user_id: user.id, role: 'owner' }).execute();
    return { user, accountId: account.id };
  });
}

/** Email + password sign-in. undefined for an unknown email or a wrong password alike (the face says the same). */
export async function authenticatePassword(db: Db, email: string, plain: string): Promise<User | undefined> {
  const row = await db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
  const matches = await password.verify(plain, row?.password_hash ?? null);
  if (!row || !matches) return undefined;
  const { password_hash: _p, ...user } = row;
  return user;
}

export interface OidcClaims {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/**
 * The user an OpenID Connect sign-in stands for. Known `sub` → that user. No users at all → the first
 * sign-in creates the owner account. A member added by email (no password, never signed in through OIDC)
 * is linked on first sign-in, but only when the provider vouches for the email (email_verified).
 * Anyone else is not a member: undefined.
 */
export async function signInOidc(db: Db, claims: OidcClaims, defaultLimit: number): Promise<User | undefined> {
  const known = await db.selectFrom('users').select(USER_COLUMNS).where('idp_user_id', '=', claims.sub).executeTakeFirst();
  if (known) return known;
  const email = claims.email?.trim();
  if (!(await hasUsers(db))) {
    if (!email) return undefined;
    const name = claims.name?.trim() || null;
    const first = await createFirstUser(db, { account_name: `${name ?? email}'s account`, email, name, idp_user_id: claims.sub, password_hash: null }, defaultLimit).catch((err) => {
      if (err instanceof Conflict) return undefined; // someone else was first a moment ago
      throw err;
    });
    if (first) return first.user;
  }
  if (!email || claims.email_verified !== true) return undefined;
  return db
    .updateTable('users')
    .set({ idp_user_id: claims.sub, ...(claims.name ? { name: claims.name } : {}) })
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('idp_user_id', 'like', 'local|%')
    .where('password_hash', 'is', null)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
}

export interface Membership {
  account_id: string;
  account_name: string;
  role: Role;
}

/** The accounts a user belongs to, oldest membership first (the default account at sign-in). */
export function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.name as account_name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('a.name')
    .execute();
}

export const NewMember = z.object({
  email: Email,
  name: z.string().trim().max(200).optional(),
  role: z.enum(['admin', 'editor', 'viewer'], { error: 'Role must be one of: admin, editor, viewer' }),
  password: Password.optional(),
});
export type NewMember = z.input<typeof NewMember>;

export interface Member extends User {
  role: Role;
  joined_at: Date;
}

export function listMembers(db: Db, accountId: string): Promise<Member[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.idp_user_id', 'u.email', 'u.name', 'm.role', 'm.created_at as joined_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('m.created_at')
    .execute();
}

/**
 * Adds a member by email. A new address becomes a `local|` user: with a password it can sign in at once;
 * without one it waits for its first OIDC sign-in (linked by verified email). An existing user is reused
 * as is (its password is not changed by someone else's invitation).
 */
export async function addMember(db: Db, accountId: string, input: NewMember): Promise<Member> {
  const m = parseInput(NewMember, input);
  const passwordHash = m.password ? await password.hash(m.password) : null;
  return inTransaction(db, async (trx) => {
    const existing = await trx.selectFrom('users').select(USER_COLUMNS).where((eb) => eb(eb.fn('lower', ['email']), '=', m.email.toLowerCase())).executeTakeFirst();
    const user =
      existing ??
      (await trx
        .insertInto('users')
        .values({ idp_user_id: `local|${randomUUID()}`, email: m.email, name: m.name ?? null, password_hash: passwordHash })
        .returning(USER_COLUMNS)
        .executeTakeFirstOrThrow());
    const added = await trx
      .insertInto('memberships')
      .values({ account_id: accountId, user_id: user.id, role: m.role })
      .onConflict((oc) => oc.doNothing())
      .returning(['role', 'created_at'])
      .executeTakeFirst();
    if (!added) throw new Conflict('This person is already a member of the account');
    return { ...user, role: added.role, joined_at: added.created_at };
  });
}

/** Removes a member (their sessions for this account stop working on the next request). Never the last owner. */
export async function removeMember(db: Db, accountId: string, userId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const owners = await trx.selectFrom('memberships').select('user_id').where('account_id', '=', accountId).where('role', '=', 'owner').forUpdate().execute();
    if (owners.length === 1 && owners[0]!.user_id === userId) throw new StateConflict('The last owner cannot be removed');
    const removed = await trx.deleteFrom('memberships').where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw new NotFound('Member not found');
  });
}

export const PasswordChange = z.object({
  current_password: z.string().max(200).optional(),
  new_password: Password,
});
export type PasswordChange = z.input<typeof PasswordChange>;

/**
 * Sets a user's password. With a password already set, the current one must match (a stolen session
 * alone cannot lock the owner out); a user without one (added by an operator or for OIDC) sets a first one.
 */
export async function changePassword(db: Db, userId: string, input: PasswordChange): Promise<void> {
  const p = parseInput(PasswordChange, input);
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  if (!row) throw new NotFound('User not found');
  if (row.password_hash !== null && !(await password.verify(p.current_password ?? '', row.password_hash))) {
    throw Validation.field('current_password', 'The current password is not correct');
  }
  await db.updateTable('users').set({ password_hash: await password.hash(p.new_password) }).where('id', '=', userId).execute();
}

export const PasswordReset = z.object({ email: Email, password: Password });
export type PasswordReset = z.input<typeof PasswordReset>;

/**
 * Operator reset (CLI, admin API): sets the password of the user with this email, no current password
 * asked. It is how an owner created by the admin API (which has no password) first signs in.
 */
export async function resetPassword(db: Db, input: PasswordReset): Promise<User> {
  const p = parseInput(PasswordReset, input);
  const passwordHash = await password.hash(p.password);
  const user = await db
    .updateTable('users')
    .set({ password_hash: passwordHash })
    .where((eb) => eb(eb.fn('lower', ['email']), '=', p.email.toLowerCase()))
    .returning(USER_COLUMNS)
    .executeTakeFirst();
  if (!user) throw new NotFound('User not found');
  return user;
}
