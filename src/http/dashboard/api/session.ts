// /app/api setup, session and me: "create the owner account" on a fresh instance, email + password
// sign-in (then the second factor, security.ts, when the user has it on) and sign-out, who is signed in,
// and switching between the member's accounts.
import { linksArePrivate } from '../../../domain/sending/publicLinks.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { KeyRateLimiter } from '../../../auth/rateLimit.ts';
import * as sessions from '../../../domain/accounts/sessions.ts';
import * as totp from '../../../domain/accounts/totp.ts';
import * as users from '../../../domain/accounts/users.ts';
import { jsonBody, ok, parse } from '../../rest/envelope.ts';
import { SESSION_COOKIE, clearSessionCookie } from '../guard.ts';
import { afterPassword, signInMode, startSession } from '../signIn.ts';

const SignIn = z.object({
  email: z.string().trim().min(1, 'Email is required').max(254),
  password: z.string().min(1, 'Password is required').max(200),
});
const SwitchAccount = z.object({ account_id: z.guid('account_id must be a UUID') });

export async function sessionRoutes(app: FastifyInstance) {
  // guessing passwords: 10 tries a minute per address and client, then 429 until the minute is over
  const signInLimiter = new KeyRateLimiter('dashboard_signin', 10, app.limitStore);
  const oidcEnabled = signInMode(app) === 'oidc';

  app.get('/setup', { config: { public: true } }, async () =>
    ok({ needs_owner: !(await users.hasUsers(app.db)), sign_in: oidcEnabled ? 'oidc' : 'password' }),
  );

  app.post('/setup/owner', { config: { public: true } }, async (req, reply) => {
    if (oidcEnabled)
      return reply.code(409).send({
        success: false,
        error: 'Sign in with your identity provider: the first sign-in creates the owner account',
      });
    const { user, accountId } = await users.createOwner(
      app.db,
      jsonBody(req.body),
      app.config.DEFAULT_SUBSCRIBER_LIMIT,
    );
    await startSession(app, req, reply, user.id, accountId);
    return reply.code(201).send(ok({ user, account_id: accountId }));
  });

  app.post('/session', { config: { public: true } }, async (req, reply) => {
    if (oidcEnabled)
      return reply
        .code(409)
        .send({ success: false, error: 'Password sign-in is off: sign in with your identity provider' });
    const { email, password } = parse(SignIn, req.body);
    const limit = await signInLimiter.consume(`${req.ip}|${email.toLowerCase()}`);
    if (!limit.allowed)
      return reply
        .code(429)
        .header('Retry-After', limit.retryAfter)
        .send({ success: false, error: 'Too many sign-in attempts', data: { retry_after: limit.retryAfter } });
    const user = await users.authenticatePassword(app.db, email, password);
    // one message for an unknown email and a wrong password, so the form does not reveal who has an account
    const step = user && (await afterPassword(app, req, reply, user.id));
    if (!user || !step) return reply.code(401).send({ success: false, error: 'Invalid email or password' });
    // with two-factor sign-in on, no user is named until the code is given
    return ok(step.signed_in ? { ...step, user } : step);
  });

  app.delete('/session', { config: { public: true } }, async (req, reply) => {
    await sessions.end(app.db, req.cookies[SESSION_COOKIE] ?? '');
    clearSessionCookie(app, reply);
    return ok({ signed_out: true });
  });

  app.get('/me', async (req) => {
    const m = req.member;
    return ok({
      user: { id: m.userId, email: m.email, name: m.name, idp_user_id: m.idpUserId },
      account: { id: m.accountId, name: m.accountName },
      role: m.role,
      sign_in: oidcEnabled ? 'oidc' : 'password',
      permissions: (['read', 'edit', 'manage'] as const).filter((p) => users.can(m.role, p)),
      accounts: await users.membershipsOf(app.db, m.userId),
      two_factor: await totp.isEnabled(app.db, m.userId),
      // links in mail would point at an address recipients cannot reach: the dashboard shows a banner
      links_private: linksArePrivate(app.config),
    });
  });

  app.put('/session/password', async (req, reply) => {
    if (oidcEnabled)
      return reply.code(409).send({ success: false, error: 'Passwords are managed by your identity provider' });
    await users.changePassword(app.db, req.member.userId, jsonBody(req.body));
    return ok({ changed: true }, 'Password changed');
  });

  app.put('/session/account', async (req) => {
    const { account_id } = parse(SwitchAccount, req.body);
    await sessions.switchAccount(app.db, req.member.sessionId, req.member.userId, account_id);
    return ok({ account_id });
  });
}
