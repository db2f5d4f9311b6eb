// /app/auth/oidc/start and /callback: browser navigations of the OpenID Connect sign-in. The state, nonce
// and PKCE verifier ride in a signed HttpOnly cookie for ten minutes, so any instance can finish a login
// another one began. Failures land back on the dashboard with ?signin_error=… (no details leak).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CALLBACK_PATH, type Oidc, type PendingLogin } from '../../auth/oidc.ts';
import * as users from '../../domain/accounts/users.ts';
import { isHttps } from './guard.ts';
import { startSession } from './signIn.ts';

const PENDING_COOKIE = 'mailgrove_oidc';

export async function oidcRoutes(app: FastifyInstance, opts: { oidc: Oidc }) {
  const cookieOptions = {
    path: CALLBACK_PATH,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: isHttps(app),
    signed: true,
  };
  const back = (reply: FastifyReply, error?: string) => reply.redirect(error ? `/?signin_error=${error}` : '/', 303);

  app.get('/app/auth/oidc/start', async (req, reply) => {
    let begun;
    try {
      begun = await opts.oidc.begin();
    } catch (err) {
      req.log.error({ err }, 'OIDC discovery failed');
      return back(reply, 'provider_unavailable');
    }
    reply.setCookie(PENDING_COOKIE, JSON.stringify(begun.pending), { ...cookieOptions, maxAge: 600 });
    return reply.redirect(begun.url, 303);
  });

  app.get(CALLBACK_PATH, async (req, reply) => {
    const raw = req.cookies[PENDING_COOKIE];
    const unsigned = raw ? req.unsignCookie(raw) : undefined;
    reply.clearCookie(PENDING_COOKIE, cookieOptions);
    if (!unsigned?.valid || !unsigned.value) return back(reply, 'expired');
    let claims;
    try {
      claims = await opts.oidc.finish(
        new URL(req.url, app.config.publicUrl),
        JSON.parse(unsigned.value) as PendingLogin,
      );
    } catch (err) {
      req.log.warn({ err }, 'OIDC sign-in rejected');
      return back(reply, 'rejected');
    }
    const user = await users.signInOidc(app.db, claims, app.config.DEFAULT_SUBSCRIBER_LIMIT);
    const account = user && (await users.membershipsOf(app.db, user.id))[0];
    if (!user || !account) return back(reply, 'not_a_member');
    await startSession(app, req, reply, user.id, account.account_id);
    return back(reply);
  });
}
