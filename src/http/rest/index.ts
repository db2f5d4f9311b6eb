// The REST face under /api/v1/external: authenticate the key, apply the per-key limit, check the route's
// scope, accept JSON bodies only and refuse text PostgreSQL cannot store, then hand over to the resource
// route files. Errors are mapped once, by restError.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_MESSAGES } from '../../auth/bearer.ts';
import type { KeyRateLimiter } from '../../auth/rateLimit.ts';
import { stopCache } from '../../domain/accounts/keyCache.ts';
import { permits } from '../../domain/accounts/scopes.ts';
import { Forbidden } from '../../domain/errors.ts';
import { keyGuard } from '../keyGuard.ts';
import { acceptJsonOnly } from './envelope.ts';
import { restError } from './errors.ts';
import { idempotency } from './idempotency.ts';
import { restRoutes } from './routes.ts';

export async function restApi(app: FastifyInstance, opts: { limiter: KeyRateLimiter }) {
  app.setErrorHandler(restError);
  acceptJsonOnly(app);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));
  app.addHook('onClose', async () => stopCache(app.db));
  const admitKey = keyGuard(app.db, opts.limiter, {
    unauthorized: (reply, reason) =>
      reply.code(401).send({ success: false, error: 'Unauthorized', message: AUTH_MESSAGES[reason] }),
    // the envelope, retry_after inside data
    rateLimited: (limit) => ({ success: false, error: 'Too many requests', data: { retry_after: limit.retryAfter } }),
  });
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const key = await admitKey(req, reply);
    if (!key) return reply;
    req.key = key;
    const scope = req.routeOptions.config?.scope;
    if (scope && !permits(key.scopes, scope)) throw new Forbidden(scope);
  });
  idempotency(app);
  for (const routes of restRoutes) await app.register(routes);
}
