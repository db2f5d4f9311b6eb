// The REST face under /api/v1/external: authenticate the key, apply the per-key limit, check the route's
// scope, accept JSON bodies only and refuse text PostgreSQL cannot store, then hand over to the resource
// route files. Errors are mapped once, by restError.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_MESSAGES, authenticateHeader } from '../../auth/bearer.ts';
import { KeyRateLimiter } from '../../auth/rateLimit.ts';
import { permits } from '../../auth/scopes.ts';
import { Forbidden, Validation } from '../../domain/errors.ts';
import { firstUnstorable, NOT_STORABLE } from '../../domain/storable.ts';
import { restError } from './errors.ts';
import { restRoutes } from './routes.ts';

export async function restApi(app: FastifyInstance, opts: { limiter: KeyRateLimiter }) {
  app.setErrorHandler(restError);
  // REST bodies are JSON (spec "Request bodies are JSON"): the form parser the public pages need and
  // Fastify's text/plain parser stay out of this face, so any other type is a 415, not a half-parsed 400
  app.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));
  app.decorateRequest('key', null as any);
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const auth = await authenticateHeader(app.db, req.headers.authorization);
    if (typeof auth === 'string') return reply.code(401).send({ success: false, error: 'Unauthorized', message: AUTH_MESSAGES[auth] });
    req.key = auth;
    const limit = await opts.limiter.consume(auth.keyId);
    reply.header('RateLimit-Limit', limit.limit).header('RateLimit-Remaining', limit.remaining).header('RateLimit-Reset', limit.resetSeconds);
    if (!limit.allowed) {
      return reply
        .code(429)
        .header('Retry-After', limit.retryAfter)
        .send({ success: false, error: 'Too many requests', data: { retry_after: limit.retryAfter } }); // issue 2 item 5: the envelope, retry_after inside data
    }
    const scope = req.routeOptions.config?.scope;
    if (scope && !permits(auth.scopes, scope)) throw new Forbidden(scope);
  });
  // NUL and unpaired surrogates anywhere in a body or query: a 400 naming the field, for every route,
  // before any of them hands the text to PostgreSQL (which refuses it with an error that would be a 500)
  app.addHook('preValidation', async (req) => {
    for (const value of [req.body, req.query]) {
      const path = firstUnstorable(value);
      if (path !== undefined) throw new Validation({ [path]: [NOT_STORABLE] }, `${path}: ${NOT_STORABLE}`);
    }
  });
  for (const routes of restRoutes) await app.register(routes);
}
