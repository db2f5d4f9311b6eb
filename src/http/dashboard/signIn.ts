// The end of every way into the dashboard (password, invitation accepted, second factor): a session
// cookie for the user's first account, or — when the user has two-factor sign-in on and the second factor
// was not given yet — a short-lived challenge the browser answers with a code (POST /session/two-factor).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as sessions from '../../domain/accounts/sessions.ts';
import * as totp from '../../domain/accounts/totp.ts';
import * as users from '../../domain/accounts/users.ts';
import { sessionTtlMs, setSessionCookie } from './guard.ts';

/** OpenID Connect when the provider is configured, else the built-in email + password. */
export function signInMode(app: FastifyInstance): users.SignInMode {
  return app.config.OIDC_ISSUER && app.config.OIDC_CLIENT_ID ? 'oidc' : 'password';
}

export type SignInStep = { signed_in: true } | { signed_in: false; two_factor_required: true; challenge: string };

/** A session for the user (in `accountId`, or their first account); false when they belong to none. */
export async function startSession(
  app: FastifyInstance,
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  accountId?: string,
): Promise<boolean> {
  const account = accountId ?? (await users.membershipsOf(app.db, userId))[0]?.account_id;
  if (!account) return false;
  const { token, expires_at } = await sessions.start(app.db, userId, account, sessionTtlMs(app), {
    userAgent: req.headers['user-agent'] ?? null,
    ip: req.ip,
  });
  setSessionCookie(app, reply, token, expires_at);
  void sessions.purgeExpired(app.db).catch(() => {});
  return true;
}

/** After the password was right: the session, or the second factor's challenge. undefined: no account. */
export async function afterPassword(
  app: FastifyInstance,
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  accountId?: string,
): Promise<SignInStep | undefined> {
  if (await totp.isEnabled(app.db, userId)) {
    if (!accountId && (await users.membershipsOf(app.db, userId)).length === 0) return undefined;
    return { signed_in: false, two_factor_required: true, challenge: await totp.startChallenge(app.db, userId) };
  }
  return (await startSession(app, req, reply, userId, accountId)) ? { signed_in: true } : undefined;
}
