// The REST face under /api/v1/external: authenticate the key, apply the per-key limit, check the route's
// scope, accept JSON bodies only and refuse text PostgreSQL cannot store, then hand over to the resource
// route files. Errors are mapped once, by restError.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_MESSAGES, authenticateHeader } from '../../auth/bearer.ts';
import { stopCache } from '../../domain/accounts/keyCache.ts';
import { KeyRateLimiter } from '../../auth/rateLimit.ts';
import { permits } from '../../domain/accounts/scopes.ts';
import { Forbidden } from '../../domain/errors.ts';
import { acceptJsonOnly } from './envelope.ts';
import { restError } from './errors.ts';
import { restRoutes } from './routes.ts';

export async function restApi(app: FastifyInstance, opts: { limiter: KeyRateLimiter }) {
  app.setErrorHandler(restError);
  acceptJsonOnly(app);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));
  app.decorateRequest('key', null as any);
  app.addHook('onClose', async () => stopCache(app.db));
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
        .send({ success: false, error: 'Too many requests', data: { retry_after: limit.retryAfter } }); // the envelope, retry_after inside data
    }
    const scope = req.routeOptions.config?.scope;
    if (scope && !permits(auth.scopes, scope)) throw new Forbidden(scope);
  });
  for (const routes of restRoutes) await app.register(routes);
}
