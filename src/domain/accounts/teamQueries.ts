// SQL for how people join and sign in beyond a password: invitations, password reset links, TOTP
// secrets and recovery codes, and sign-ins waiting for their second factor. One function per query;
// tokens are looked up by their SHA-256 (tokens.ts).
import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { InvitationsTable } from '../../db/schema/dashboard.ts';

const INVITATION_FIELDS = [
  'id',
  'email',
  'name',
  'role',
  'created_at',
  'sent_at',
  'expires_at',
  'accepted_at',
] as const;
const INVITATION_COLUMNS = INVITATION_FIELDS.map((c) => `i.${c}` as const);

// ---- invitations ----

/** The account's invitations not accepted yet (expired ones too: the list offers to resend them). */
export function openInvitations(db: Db, accountId: string) {
  return db
    .selectFrom('invitations as i')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select([...INVITATION_COLUMNS, 'u.email as invited_by'])
    .where('i.account_id', '=', accountId)
    .where('i.accepted_at', 'is', null)
    .orderBy('i.created_at', 'desc')
    .execute();
}

/** The open invitation of this address to this account, locked (inviting again replaces its link). */
export function openInvitationFor(db: Db, accountId: string, email: string) {
  return db
    .selectFrom('invitations')
    .select('id')
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('accepted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

export function insertInvitation(db: Db, values: Insertable<InvitationsTable>) {
  return db.insertInto('invitations').values(values).returning(INVITATION_FIELDS).executeTakeFirstOrThrow();
}

/** A new link for an open invitation (the old one stops working); undefined: no such open invitation. */
export function renewInvitation(
  db: Db,
  accountId: string,
  id: string,
  v: {
    token_hash: string;
    expires_at: Date;
    role?: InvitationsTable['role'];
    name?: string | null;
    invited_by: string;
  },
) {
  return db
    .updateTable('invitations')
    .set({ ...v, sent_at: new Date() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .returning(INVITATION_FIELDS)
    .executeTakeFirst();
}

export async function deleteOpenInvitation(db: Db, accountId: string, id: string): Promise<number> {
  const r = await db
    .deleteFrom('invitations')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The invitation a link stands for, with its account's name; `lock` for the accepting transaction. */
export function invitationByTokenHash(db: Db, tokenHash: string, lock = false) {
  const q = db
    .selectFrom('invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .select([...INVITATION_COLUMNS, 'i.account_id', 'a.name as account_name'])
    .where('i.token_hash', '=', tokenHash);
  return (lock ? q.forUpdate('i') : q).executeTakeFirst();
}

export async function markInvitationAccepted(db: Db, id: string): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: new Date() }).where('id', '=', id).execute();
}

// ---- password resets ----

export async function insertPasswordReset(db: Db, userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({ user_id: userId, token_hash: tokenHash, expires_at: expiresAt })
    .execute();
}

export function passwordResetByTokenHash(db: Db, tokenHash: string, lock = false) {
  const q = db
    .selectFrom('password_resets')
    .select(['id', 'user_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', tokenHash);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

/** Uses up every open reset link of the user: the one followed and any older one. */
export async function usePasswordResets(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('password_resets')
    .set({ used_at: new Date() })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

// ---- TOTP and recovery codes ----

export function totpOf(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select(['email', 'password_hash', 'totp_pending_secret', 'totp_secret', 'totp_enabled_at', 'totp_last_step'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function setPendingTotp(db: Db, userId: string, sealed: string): Promise<void> {
  await db.updateTable('users').set({ totp_pending_secret: sealed }).where('id', '=', userId).execute();
}

/** The pending secret becomes the user's: only if it is still the one the code was checked against. */
export async function enableTotp(db: Db, userId: string, sealed: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ totp_secret: sealed, totp_pending_secret: null, totp_enabled_at: new Date(), totp_last_step: step })
    .where('id', '=', userId)
    .where('totp_pending_secret', '=', sealed)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function disableTotp(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null })
    .where('id', '=', userId)
    .execute();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/**
 * Records `step` as the last time step used, only when it is later than the last one: false means the code
 * (or an older one) was used already, so a code read over someone's shoulder cannot be replayed in its window.
 */
export async function useTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where('totp_secret', 'is not', null)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
    .execute();
}

/** true when the code was there and unused; it is used from now on */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
  const r = await db
    .updateTable('recovery_codes')
    .set({ used_at: new Date() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const r = await db
    .selectFrom('recovery_codes')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return r.n;
}

// ---- sign-ins waiting for the second factor ----

export async function insertChallenge(db: Db, userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('expires_at', '<', new Date()).execute();
  await db
    .insertInto('sign_in_challenges')
    .values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt })
    .execute();
}

export async function challengeUser(db: Db, tokenHash: string): Promise<string | undefined> {
  const r = await db
    .selectFrom('sign_in_challenges')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  return r?.user_id;
}

export async function deleteChallenge(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('token_hash', '=', tokenHash).execute();
}
