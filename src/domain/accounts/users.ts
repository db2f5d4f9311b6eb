// Dashboard users and their memberships: the first owner, password and OpenID Connect sign-in,
// team members and what each role may do. A user's identity is idp_user_id: `local|<uuid>` for built-in
// sign-in, the provider's `sub` for OIDC. Roles live in memberships, per account.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import * as password from './password.ts';
import * as repo from './queries.ts';
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

/** A password someone chooses: the one rule for the first owner, a member, an invitation and a reset. */
export const NewPassword = z
  .string()
  .min(password.MIN_LENGTH, `Password must be at least ${password.MIN_LENGTH} characters`)
  .max(200);

export const NewOwner = z.object({
  account_name: z.string().trim().min(1, 'Account name is required').max(200),
  name: z.string().trim().max(200).optional(),
  email: Email,
  password: NewPassword,
});
export type NewOwner = z.input<typeof NewOwner>;

export function hasUsers(db: Db): Promise<boolean> {
  return repo.hasUsers(db);
}

/** "Create the owner account": only while the instance has no users at all; a second attempt is a Conflict. */
export async function createOwner(
  db: Db,
  input: unknown,
  defaultLimit: number,
): Promise<{ user: User; accountId: string }> {
  const a = parseInput(NewOwner, input);
  const passwordHash = await password.hash(a.password); // ~50 ms of CPU: outside the transaction
  return createFirstUser(
    db,
    {
      account_name: a.account_name,
      email: a.email,
      name: a.name ?? null,
      idp_user_id: `local|${randomUUID()}`,
      password_hash: passwordHash,
    },
    defaultLimit,
  );
}

async function createFirstUser(
  db: Db,
  u: { account_name: string; email: string; name: string | null; idp_user_id: string; password_hash: string | null },
  defaultLimit: number,
): Promise<{ user: User; accountId: string }> {
  return inTransaction(db, async (trx) => {
    // two first visits at once: the lock makes the second one see the first one's user and stop
    await repo.lockFirstOwner(trx);
    if (await repo.hasUsers(trx)) throw new Conflict('The owner account already exists; sign in instead');
    const account = await repo.insertAccount(trx, { name: u.account_name, subscriber_limit: defaultLimit });
    const user = await repo.insertUser(trx, {
      idp_user_id: u.idp_user_id,
      email: u.email,
      name: u.name,
      password_hash: u.password_hash,
    });
    await repo.insertMembership(trx, account.id, user.id, 'owner');
    return { user, accountId: account.id };
  });
}

/** Email + password sign-in. undefined for an unknown email or a wrong password alike (the face says the same). */
export async function authenticatePassword(db: Db, email: string, plain: string): Promise<User | undefined> {
  const row = await repo.userWithPasswordByEmail(db, email.trim());
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
  const known = await repo.userByIdp(db, claims.sub);
  if (known) return known;
  const email = claims.email?.trim();
  if (!(await repo.hasUsers(db))) {
    if (!email) return undefined;
    const name = claims.name?.trim() || null;
    const first = await createFirstUser(
      db,
      { account_name: `${name ?? email}'s account`, email, name, idp_user_id: claims.sub, password_hash: null },
      defaultLimit,
    ).catch((err) => {
      if (err instanceof Conflict) return undefined; // someone else was first a moment ago
      throw err;
    });
    if (first) return first.user;
  }
  if (!email || claims.email_verified !== true) return undefined;
  return repo.linkToIdp(db, email, claims.sub, claims.name);
}

export interface Membership {
  account_id: string;
  account_name: string;
  role: Role;
}

/** The accounts a user belongs to, oldest membership first (the default account at sign-in). */
export function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  return repo.membershipsOf(db, userId);
}

export const NewMember = z.object({
  email: Email,
  name: z.string().trim().max(200).optional(),
  role: z.enum(['admin', 'editor', 'viewer'], { error: 'Role must be one of: admin, editor, viewer' }),
  password: NewPassword.optional(),
});
export type NewMember = z.input<typeof NewMember>;

export interface Member extends User {
  role: Role;
  joined_at: Date;
}

export function listMembers(db: Db, accountId: string): Promise<Member[]> {
  return repo.members(db, accountId);
}

/** How people sign in to this instance's dashboard: built-in passwords, or an OpenID Connect provider. */
export type SignInMode = 'password' | 'oidc';

/**
 * Adds a member by email. A new address becomes a `local|` user: with a password it can sign in at once;
 * without one it waits for its first OIDC sign-in (linked by verified email). An existing user is reused
 * as is (its password is not changed by someone else's invitation). With password sign-in, nobody is
 * added who could not sign in: a new address, or one that has no password yet, needs a password here or
 * an invitation by email (invitations.ts).
 */
export async function addMember(db: Db, accountId: string, input: unknown, signIn: SignInMode): Promise<Member> {
  const m = parseInput(NewMember, input);
  if (signIn === 'password' && !m.password) {
    const known = await repo.userWithPasswordByEmail(db, m.email);
    if (!known?.password_hash)
      throw Validation.field(
        'password',
        'Give an initial password, or invite the member by email: without either they could not sign in',
      );
  }
  const passwordHash = m.password ? await password.hash(m.password) : null;
  return inTransaction(db, async (trx) => {
    const user =
      (await repo.userByEmail(trx, m.email)) ??
      (await repo.insertUser(trx, {
        idp_user_id: `local|${randomUUID()}`,
        email: m.email,
        name: m.name ?? null,
        password_hash: passwordHash,
      }));
    const added = await repo.insertMembership(trx, accountId, user.id, m.role);
    if (!added) throw new Conflict('This person is already a member of the account');
    return { ...user, role: added.role, joined_at: added.created_at };
  });
}

/** Removes a member (their sessions for this account stop working on the next request). Never the last owner. */
export async function removeMember(db: Db, accountId: string, userId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const owners = await repo.lockOwners(trx, accountId);
    if (owners.length === 1 && owners[0] === userId) throw new StateConflict('The last owner cannot be removed');
    if ((await repo.deleteMembership(trx, accountId, userId)) === 0) throw new NotFound('Member not found');
  });
}

export const RoleChange = z.object({
  role: z.enum(ROLES, { error: `Role must be one of: ${ROLES.join(', ')}` }),
});
export type RoleChange = z.input<typeof RoleChange>;

/**
 * Gives a member another role. Only an owner gives or takes the owner role (an admin cannot make
 * themselves or anyone else an owner, nor demote one), and the last owner cannot be demoted.
 */
export async function changeRole(
  db: Db,
  accountId: string,
  userId: string,
  input: unknown,
  byRole: Role,
): Promise<Member> {
  const { role } = parseInput(RoleChange, input);
  return inTransaction(db, async (trx) => {
    const current = await repo.roleIn(trx, userId, accountId);
    if (!current) throw new NotFound('Member not found');
    if (byRole !== 'owner' && (role === 'owner' || current.role === 'owner'))
      throw Validation.field('role', 'Only an owner can give or take the owner role');
    const owners = await repo.lockOwners(trx, accountId);
    if (role !== 'owner' && owners.length === 1 && owners[0] === userId)
      throw new StateConflict('The last owner cannot be demoted; make someone else an owner first');
    await repo.setRole(trx, accountId, userId, role);
    const member = (await repo.members(trx, accountId)).find((m) => m.id === userId);
    if (!member) throw new NotFound('Member not found');
    return member;
  });
}

export const PasswordChange = z.object({
  current_password: z.string().max(200).optional(),
  new_password: NewPassword,
});
export type PasswordChange = z.input<typeof PasswordChange>;

/**
 * Sets a user's password. With a password already set, the current one must match (a stolen session
 * alone cannot lock the owner out); a user without one (added by an operator or for OIDC) sets a first one.
 */
export async function changePassword(db: Db, userId: string, input: unknown): Promise<void> {
  const p = parseInput(PasswordChange, input);
  const row = await repo.passwordHashOf(db, userId);
  if (!row) throw new NotFound('User not found');
  if (row.password_hash !== null && !(await password.verify(p.current_password ?? '', row.password_hash))) {
    throw Validation.field('current_password', 'The current password is not correct');
  }
  await repo.setPassword(db, userId, await password.hash(p.new_password));
}

export const PasswordReset = z.object({ email: Email, password: NewPassword });
export type PasswordReset = z.input<typeof PasswordReset>;

/**
 * Operator reset (CLI, admin API): sets the password of the user with this email, no current password
 * asked. It is how an owner created by the admin API (which has no password) first signs in.
 */
export async function resetPassword(db: Db, input: unknown): Promise<User> {
  const p = parseInput(PasswordReset, input);
  const passwordHash = await password.hash(p.password);
  const user = await repo.setPasswordByEmail(db, p.email, passwordHash);
  if (!user) throw new NotFound('User not found');
  return user;
}
