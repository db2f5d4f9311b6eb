// Invitations by email: an owner or admin invites an address with a role; the mail's link (single use,
// stored as its SHA-256, expiring after INVITATION_DAYS) lets the person set their password — or, when the
// address already signs in with one, enter it — and makes them a member. Inviting an address again, or
// "resend", gives the open invitation a new link and a new expiry; the old link stops working.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { Conflict, NotFound, Validation } from '../errors.ts';
import { Email } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as password from './password.ts';
import * as repo from './queries.ts';
import { sendInvitation, type TeamMail } from './teamMail.ts';
import * as team from './teamQueries.ts';
import { hashToken, newToken, usableLink } from './tokens.ts';
import { NewPassword, type User } from './users.ts';

export const INVITATION_DAYS = 7;
const INVITABLE = ['admin', 'editor', 'viewer'] as const;

export const NewInvitation = z.object({
  email: Email,
  name: z.string().trim().max(200).optional(),
  role: z.enum(INVITABLE, { error: 'Role must be one of: admin, editor, viewer' }),
});
export type NewInvitation = z.input<typeof NewInvitation>;

export interface Invitation {
  id: string;
  email: string;
  name: string | null;
  role: (typeof INVITABLE)[number];
  created_at: Date;
  sent_at: Date;
  expires_at: Date;
  /** false when the transport refused the mail: the invitation stands, "resend" tries again */
  sent?: boolean;
}

export async function list(db: Db, accountId: string) {
  return team.openInvitations(db, accountId);
}

interface Inviter {
  accountId: string;
  accountName: string;
  userId: string;
  who: string;
}

/** Invites `input.email` to the inviter's account and mails the link. A member already → Conflict. */
export async function invite(db: Db, mail: TeamMail, by: Inviter, input: unknown): Promise<Invitation> {
  const i = parseInput(NewInvitation, input);
  const { token, hash } = newToken();
  const expires_at = new Date(Date.now() + INVITATION_DAYS * 86_400_000);
  const invitation = await inTransaction(db, async (trx) => {
    const existing = await repo.userByEmail(trx, i.email);
    if (existing && (await repo.roleIn(trx, existing.id, by.accountId)))
      throw new Conflict('This person is already a member of the account');
    const open = await team.openInvitationFor(trx, by.accountId, i.email);
    const link = { token_hash: hash, expires_at, role: i.role, name: i.name ?? null, invited_by: by.userId };
    return open
      ? (await team.renewInvitation(trx, by.accountId, open.id, link))!
      : team.insertInvitation(trx, { account_id: by.accountId, email: i.email, ...link });
  });
  return { ...invitation, sent: await mailIt(mail, by, invitation, token) };
}

/** A new link for an open invitation, mailed again (the previous link stops working). */
export async function resend(db: Db, mail: TeamMail, by: Inviter, id: string): Promise<Invitation> {
  const { token, hash } = newToken();
  const expires_at = new Date(Date.now() + INVITATION_DAYS * 86_400_000);
  const invitation = await team.renewInvitation(db, by.accountId, id, {
    token_hash: hash,
    expires_at,
    invited_by: by.userId,
  });
  if (!invitation) throw new NotFound('Invitation not found');
  return { ...invitation, sent: await mailIt(mail, by, invitation, token) };
}

async function mailIt(mail: TeamMail, by: Inviter, i: { email: string; role: string }, token: string) {
  const result = await sendInvitation(mail, {
    accountName: by.accountName,
    email: i.email,
    role: i.role,
    inviter: by.who,
    token,
    days: INVITATION_DAYS,
  });
  return result.ok;
}

export async function revoke(db: Db, accountId: string, id: string): Promise<void> {
  if ((await team.deleteOpenInvitation(db, accountId, id)) === 0) throw new NotFound('Invitation not found');
}

const Token = z.object({ token: z.string().min(1, 'The link has no token').max(200) });

const LINK_WORDS = {
  invalid: 'This invitation link is not valid: it was used already, revoked, or replaced by a newer one',
  expired: 'This invitation has expired: ask whoever invited you to send it again',
};

async function openByToken(db: Db, token: string, lock = false) {
  return usableLink(await team.invitationByTokenHash(db, hashToken(token), lock), (r) => r.accepted_at, LINK_WORDS);
}

/** What the invitation page shows before anything is typed; `has_password`: the form asks for it instead. */
export async function preview(db: Db, input: unknown) {
  const { token } = parseInput(Token, input);
  const row = await openByToken(db, token);
  const user = await repo.userWithPasswordByEmail(db, row.email);
  return {
    account_name: row.account_name,
    email: row.email,
    name: row.name,
    role: row.role,
    expires_at: row.expires_at,
    has_password: Boolean(user?.password_hash),
  };
}

export const Acceptance = Token.extend({
  name: z.string().trim().max(200).optional(),
  password: NewPassword,
});
export type Acceptance = z.input<typeof Acceptance>;

/**
 * Accepts an invitation: a new address becomes a `local|` user with the password given; an address that
 * has a password already must give it (the link alone does not change anyone's password); one without a
 * password sets its first. The membership is added and the link is used up, in one transaction.
 */
export async function accept(db: Db, input: unknown): Promise<{ user: User; accountId: string }> {
  const a = parseInput(Acceptance, input);
  const first = await openByToken(db, a.token);
  const known = await repo.userWithPasswordByEmail(db, first.email);
  if (known?.password_hash) {
    if (!(await password.verify(a.password, known.password_hash)))
      throw Validation.field('password', 'This address already has a password: enter it to accept');
  }
  const newHash = known?.password_hash ? undefined : await password.hash(a.password); // outside the transaction
  return inTransaction(db, async (trx) => {
    const row = await openByToken(trx, a.token, true); // a second click waits here, then finds it used
    let user = await repo.userByEmail(trx, row.email);
    if (!user)
      user = await repo.insertUser(trx, {
        idp_user_id: `local|${randomUUID()}`,
        email: row.email,
        name: a.name || row.name,
        password_hash: newHash,
      });
    else if (newHash) await repo.setPassword(trx, user.id, newHash);
    await repo.insertMembership(trx, row.account_id, user.id, row.role);
    await team.markInvitationAccepted(trx, row.id);
    return { user, accountId: row.account_id };
  });
}
