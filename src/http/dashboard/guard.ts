// The one gate in front of /app/api: CSRF check on state-changing requests, the session cookie, and the
// route's permission for the member's role. Routes declare `{ config: { permission: 'manage' } }` or
// `{ config: { public: true } }` (sign-in, first owner); everything else needs a session and 'read'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as sessions from '../../domain/accounts/sessions.ts';
import * as users from '../../domain/accounts/users.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** what a dashboard route needs of the member's role (default 'read') */
    permission?: users.Permission;
  }
  interface FastifyRequest {
    /** the signed-in dashboard member; set on every non-public /app/api route */
    member: sessions.SessionContext;
  }
}

export const SESSION_COOKIE = 'mailgrove_session';
export const CSRF_HEADER = 'x-mailgrove-csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sessionTtlMs(app: FastifyInstance): number {
  return app.config.SESSION_TTL_HOURS * 3_600_000;
}

export function setSessionCookie(app: FastifyInstance, reply: FastifyReply, token: string, expires: Date): void {
  reply.setCookie(SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(app), expires });
}

export function clearSessionCookie(app: FastifyInstance, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(app) });
}

export function isHttps(app: FastifyInstance): boolean {
  return app.config.publicUrl.startsWith('https:');
}

/**
 * A cross-site page cannot add a custom header without a CORS preflight, which we never grant, so
 * requiring one on every POST/PUT/PATCH/DELETE stops CSRF (login CSRF included). A present Origin must
 * also be ours: the public URL's origin or the origin the request was addressed to.
 */
export function crossSiteProblem(app: FastifyInstance, req: FastifyRequest): string | undefined {
  if (SAFE_METHODS.has(req.method)) return undefined;
  if (req.headers[CSRF_HEADER] === undefined) return `Missing ${CSRF_HEADER} header`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const own = [new URL(app.config.publicUrl).origin, `${req.protocol}://${req.host}`];
  return own.includes(origin) ? undefined : 'Cross-origin request refused';
}

export function installGuard(app: FastifyInstance): void {
  app.decorateRequest('member', null as any);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('cache-control', 'no-store');
    const csrf = crossSiteProblem(app, req);
    if (csrf) return reply.code(403).send({ success: false, error: 'Forbidden', message: csrf });
    const config = req.routeOptions.config;
    if (config?.public) return;
    const member = await sessions.resolve(app.db, req.cookies[SESSION_COOKIE] ?? '', sessionTtlMs(app));
    if (!member) return reply.code(401).send({ success: false, error: 'Unauthorized', message: 'Sign in to continue' });
    req.member = member;
    const needed = config?.permission ?? 'read';
    if (!users.can(member.role, needed)) {
      return reply
        .code(403)
        .send({ success: false, error: 'Forbidden', message: `Your role (${member.role}) does not allow this` });
    }
  });
}
