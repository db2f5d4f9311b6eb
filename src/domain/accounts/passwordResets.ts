// "Forgot password?": a mailed link, single use and valid for an hour, that sets a new password and ends
// every session of the user (whoever held one is out). The request never says whether the address has an
// account: the face answers the same either way and sends the mail after it has answered.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { Email } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as password from './password.ts';
import * as repo from './queries.ts';
import { deleteAllOfUser } from './sessionQueries.ts';
import { sendPasswordReset, type TeamMail } from './teamMail.ts';
import * as team from './teamQueries.ts';
import { hashToken, newToken, usableLink } from './tokens.ts';
import { NewPassword } from './users.ts';

export const RESET_TTL_MS = 60 * 60_000;

export const ResetRequest = z.object({ email: Email });
export type ResetRequest = z.input<typeof ResetRequest>;

/** The address, parsed: the face rate-limits on it before anything is looked up. */
export function requestedAddress(input: unknown): string {
  return parseInput(ResetRequest, input).email.toLowerCase();
}

/** Mails a reset link when the address is a person's who can sign in; does nothing otherwise. */
export async function request(db: Db, mail: TeamMail, email: string): Promise<void> {
  const user = await repo.userByEmail(db, email);
  if (!user || !user.idp_user_id.startsWith('local|')) return; // service owners and OIDC identities have no password here
  const { token, hash } = newToken();
  await team.insertPasswordReset(db, user.id, hash, new Date(Date.now() + RESET_TTL_MS));
  await sendPasswordReset(mail, { email: user.email, token });
}

const Token = z.object({ token: z.string().min(1, 'The link has no token').max(200) });

const LINK_WORDS = {
  invalid: 'This password reset link is not valid: it was used already',
  expired: 'This password reset link has expired: ask for a new one',
};

async function openReset(db: Db, token: string, lock = false) {
  return usableLink(await team.passwordResetByTokenHash(db, hashToken(token), lock), (r) => r.used_at, LINK_WORDS);
}

/** Whether a link still works, so the page can say so before a password is typed. */
export async function check(db: Db, input: unknown): Promise<{ valid: true }> {
  await openReset(db, parseInput(Token, input).token);
  return { valid: true };
}

export const NewPasswordByLink = Token.extend({ password: NewPassword });
export type NewPasswordByLink = z.input<typeof NewPasswordByLink>;

/** Sets the new password, uses up every open link of the user and ends all their sessions. */
export async function complete(db: Db, input: unknown): Promise<void> {
  const r = parseInput(NewPasswordByLink, input);
  await openReset(db, r.token);
  const passwordHash = await password.hash(r.password); // ~0.1–0.3 s of scrypt: outside the transaction
  await inTransaction(db, async (trx) => {
    const row = await openReset(trx, r.token, true);
    await repo.setPassword(trx, row.user_id, passwordHash);
    await team.usePasswordResets(trx, row.user_id);
    await deleteAllOfUser(trx, row.user_id);
  });
}
