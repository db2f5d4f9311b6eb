// Two-factor sign-in with TOTP (RFC 6238: 6 digits, 30 s, SHA-1, what every authenticator app reads),
// through `otpauth`. Enrolment: a new secret is kept sealed as pending until a code from the app confirms
// it; then it is the user's, and ten single-use recovery codes are shown once (stored as hashes). Sign-in
// asks for a code after the password; a code is accepted once (the last time step used is recorded, so it
// cannot be replayed within its window); a recovery code works once. Turning it off needs the password
// and a code. The secret is sealed with the instance secret (src/secret.ts): a copy of the database alone
// cannot make codes.
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { openSecret, sealSecret } from '../../secret.ts';
import { NotFound, StateConflict, Validation } from '../errors.ts';
import { Email } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as password from './password.ts';
import * as repo from './queries.ts';
import { deleteAllOfUser } from './sessionQueries.ts';
import * as team from './teamQueries.ts';
import { hashToken, newToken } from './tokens.ts';

const ISSUER = 'Mailgrove';
const PERIOD = 30;
const RECOVERY_CODES = 10;
/** how long the password step of a sign-in waits for its code */
export const CHALLENGE_TTL_MS = 5 * 60_000;

function totpFor(email: string, base32: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(base32), period: PERIOD, digits: 6 });
}

const Code = z
  .string({ error: 'Enter the 6-digit code from your authenticator app' })
  .trim()
  .min(1, 'Enter the 6-digit code from your authenticator app')
  .max(40);

/** The time step a TOTP code belongs to, or undefined when it is not valid now (one step of drift allowed). */
function stepOf(totp: TOTP, code: string): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp.validate({ token: code, window: 1 });
  return delta === null ? undefined : Math.floor(Date.now() / 1000 / PERIOD) + delta;
}

export interface Enrolment {
  /** base32, for typing into an app by hand */
  secret: string;
  /** otpauth://totp/… for the QR code */
  uri: string;
}

/** Starts (or starts again) an enrolment: a new pending secret; the confirmed one, if any, is untouched. */
export async function beginEnrolment(db: Db, instanceSecret: string, userId: string): Promise<Enrolment> {
  const user = await team.totpOf(db, userId);
  if (!user) throw new NotFound('User not found');
  if (user.totp_enabled_at)
    throw new StateConflict('Two-factor sign-in is on already: turn it off first to enrol again');
  const secret = new Secret({ size: 20 }).base32;
  await team.setPendingTotp(db, userId, sealSecret(instanceSecret, secret));
  return { secret, uri: totpFor(user.email, secret).toString() };
}

export const Confirmation = z.object({ code: Code });

/** A code from the app confirms the pending secret; answers the recovery codes, shown this once. */
export async function confirmEnrolment(
  db: Db,
  instanceSecret: string,
  userId: string,
  input: unknown,
): Promise<{ recovery_codes: string[] }> {
  const { code } = parseInput(Confirmation, input);
  const user = await team.totpOf(db, userId);
  if (!user) throw new NotFound('User not found');
  if (user.totp_enabled_at) throw new StateConflict('Two-factor sign-in is on already');
  if (!user.totp_pending_secret) throw new StateConflict('Start the enrolment first');
  const step = stepOf(totpFor(user.email, openSecret(instanceSecret, user.totp_pending_secret)), code);
  if (step === undefined)
    throw Validation.field('code', 'That code is not right: check the time on your phone and try the next one');
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await inTransaction(db, async (trx) => {
    if (!(await team.enableTotp(trx, userId, user.totp_pending_secret!, step)))
      throw new StateConflict('The enrolment was started again elsewhere: use the new QR code');
    await team.replaceRecoveryCodes(
      trx,
      userId,
      codes.map((c) => recoveryHash(userId, c)),
    );
  });
  return { recovery_codes: codes };
}

/** xxxxx-xxxxx from an alphabet without look-alikes (50 bits) */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const chars = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function recoveryHash(userId: string, code: string): string {
  const normal = code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return createHash('sha256').update(`${userId}:${normal}`).digest('hex');
}

/**
 * Checks a second factor: a TOTP code (used up with its time step) or a recovery code (used up). false for
 * anything else, and for a code already used.
 */
export async function verifyCode(db: Db, instanceSecret: string, userId: string, code: string): Promise<boolean> {
  const user = await team.totpOf(db, userId);
  if (!user?.totp_secret) return false;
  const trimmed = code.trim();
  if (/^\d{6}$/.test(trimmed)) {
    const step = stepOf(totpFor(user.email, openSecret(instanceSecret, user.totp_secret)), trimmed);
    return step !== undefined && (await team.useTotpStep(db, userId, step));
  }
  return team.useRecoveryCode(db, userId, recoveryHash(userId, trimmed));
}

export async function status(db: Db, userId: string): Promise<{ enabled: boolean; recovery_codes_left: number }> {
  const user = await team.totpOf(db, userId);
  if (!user) throw new NotFound('User not found');
  return {
    enabled: user.totp_enabled_at !== null,
    recovery_codes_left: user.totp_enabled_at ? await team.recoveryCodesLeft(db, userId) : 0,
  };
}

export async function isEnabled(db: Db, userId: string): Promise<boolean> {
  return (await team.totpOf(db, userId))?.totp_enabled_at != null;
}

export const Disabling = z.object({
  password: z.string().min(1, 'Enter your password').max(200),
  code: Code,
});

/** Turns two-factor sign-in off: the password and a code (or a recovery code) are both needed. */
export async function disable(db: Db, instanceSecret: string, userId: string, input: unknown): Promise<void> {
  const d = parseInput(Disabling, input);
  const user = await team.totpOf(db, userId);
  if (!user) throw new NotFound('User not found');
  if (!user.totp_enabled_at) throw new StateConflict('Two-factor sign-in is off already');
  if (!(await password.verify(d.password, user.password_hash)))
    throw Validation.field('password', 'The password is not correct');
  if (!(await verifyCode(db, instanceSecret, userId, d.code)))
    throw Validation.field('code', 'That code is not right, or was used already');
  await inTransaction(db, (trx) => team.disableTotp(trx, userId));
}

export const OperatorReset = z.object({ email: Email });
export type OperatorReset = z.input<typeof OperatorReset>;

/**
 * The operator's way out (CLI, admin API) for a person who lost both the phone and the recovery codes:
 * two-factor sign-in is off (secret and recovery codes gone), the password alone signs in, and the person
 * enrols again. Their sessions end too, as after a password reset. Whoever asks may not be the person: the
 * operator checks that first.
 */
export async function resetByOperator(db: Db, input: unknown) {
  const { email } = parseInput(OperatorReset, input);
  const user = await repo.personByEmail(db, email);
  if (!user) throw new NotFound('User not found');
  await inTransaction(db, async (trx) => {
    await team.disableTotp(trx, user.id);
    await deleteAllOfUser(trx, user.id);
  });
  return { ...user, two_factor: false };
}

// ---- the sign-in between password and code ----

/** After the password: a challenge token the browser sends back with the code. */
export async function startChallenge(db: Db, userId: string): Promise<string> {
  const { token, hash } = newToken();
  await team.insertChallenge(db, userId, hash, new Date(Date.now() + CHALLENGE_TTL_MS));
  return token;
}

export const ChallengeAnswer = z.object({
  challenge: z.string().min(1, 'Sign in with your password first').max(200),
  code: Code,
});

/** The user a challenge stands for; undefined when it is unknown or expired (sign in again). */
export async function challengeUser(db: Db, challenge: string): Promise<string | undefined> {
  return team.challengeUser(db, hashToken(challenge));
}

export async function endChallenge(db: Db, challenge: string): Promise<void> {
  await team.deleteChallenge(db, hashToken(challenge));
}
