// Builds the HTTP app: every face as its own encapsulated plugin over one database, one job queue and one
// mail transport.
// buildApp does not listen, so tests call app.listen({ port: 0 }).
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import formbody from '@fastify/formbody';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/client.ts';
import { KeyRateLimiter } from '../auth/rateLimit.ts';
import type { Queue } from '../jobs/queue.ts';
import type { MailTransport } from '../mail/transport.ts';
import { adminApi } from './admin/index.ts';
import { dashboard } from './dashboard/index.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { publicRoutes } from './public/index.ts';
import { restApi } from './rest/index.ts';
import { clientError, frameworkError, httpErrorBody, httpStatusOf } from './rest/errors.ts';
import './types.ts';

export interface AppDeps {
  handle: DbHandle;
  queue: Queue;
  /** the process's one mail transport; whoever created it closes it */
  transport: MailTransport;
  /** shared rate-limit store client (ioredis) when REDIS_URL is set */
  redis?: unknown;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: 1024 * 1024, // JSON bodies over 1 MB → 413
    // only behind a proxy we trust may X-Forwarded-For pick the client IP (form rate limits key on it)
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkError, // bad percent-encoding, over-long path params: still the envelope
    clientErrorHandler: clientError, // so are headers over 16 KB and broken HTTP
  });
  app.decorate('db', deps.handle.db);
  app.decorate('dbHandle', deps.handle);
  app.decorate('config', config);
  app.decorate('queue', deps.queue);
  app.decorate('transport', deps.transport);
  await app.register(formbody);

  app.setErrorHandler((err: FastifyError, req, reply) => reply.code(httpStatusOf(err)).send(httpErrorBody(err, req)));
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));

  app.get('/api/health', async (req, reply) => {
    // spec: 503 {status:'down', message} when unhealthy; the database must answer within 1 s
    const healthy = await Promise.race([
      sql`select 1`.execute(app.db).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
    ]);
    if (!healthy) return reply.code(503).send({ status: 'down', message: 'Database is not responding' });
    return {
      status: 'ok',
      message: 'Service is healthy',
      timestamp: new Date().toISOString(),
      version: config.version,
    };
  });

  const restLimiter = new KeyRateLimiter('rest', config.REST_RATE_LIMIT, deps.redis);
  await app.register(restApi, { prefix: '/api/v1/external', limiter: restLimiter });
  await app.register(mcpEndpoint, {
    prefix: '/mcp',
    limiter: new KeyRateLimiter('mcp', config.MCP_RATE_LIMIT, deps.redis),
  } as any);
  await app.register(adminApi, { prefix: '/admin/v1' });
  await app.register(publicRoutes);
  await app.register(dashboard);
  return app;
}
