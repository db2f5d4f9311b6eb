// Builds the HTTP app: every face as its own encapsulated plugin over one database, one job queue and one
// mail transport.
// buildApp does not listen, so tests call app.listen({ port: 0 }).
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/client.ts';
import { KeyRateLimiter, limitStore, type LimitStore } from '../auth/rateLimit.ts';
import type { Queue } from '../jobs/queue.ts';
import type { MailTransport } from '../mail/transport.ts';
import { adminApi } from './admin/index.ts';
import { dashboard } from './dashboard/index.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { openapiRoutes } from './openapi/routes.ts';
import { publicRoutes } from './public/index.ts';
import { restApi } from './rest/index.ts';
import { clientError, frameworkError, restError } from './rest/errors.ts';
import { OneLinePerRequest, requestLog } from './requestLog.ts';
import { textGuard } from './textGuard.ts';
import './types.ts';

export interface AppDeps {
  handle: DbHandle;
  queue: Queue;
  /** the process's one mail transport; whoever created it closes it */
  transport: MailTransport;
  /** shared rate-limit store client (ioredis) when REDIS_URL is set */
  redis?: unknown;
  /** where the log lines go instead of stdout (tests read them) */
  logStream?: { write(line: string): void };
  /** a worker-only instance: the health checks, no API, MCP or dashboard */
  healthOnly?: boolean;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      ...(deps.logStream && { stream: deps.logStream }),
    },
    logController: new OneLinePerRequest(), // requestLog writes one line per request instead, without the raw URL
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
  await app.register(helmet, securityHeaders(config));
  requestLog(app);

  // the envelope for every face without its own handler: domain and database errors mapped once
  app.setErrorHandler(restError);
  // the one text rule at every door; MCP applies it to tool arguments itself (its errors are JSON-RPC)
  app.addHook('preValidation', textGuard);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));

  await metricsRoutes(app); // on the root and first, so its hooks time every route, health checks included
  await app.register(healthRoutes);
  if (deps.healthOnly) return app;

  const store = limitStore(config.RATE_LIMIT_STORE, deps.handle, deps.redis);
  app.decorate<LimitStore>('limitStore', store);
  const restLimiter = new KeyRateLimiter('rest', config.REST_RATE_LIMIT, store, { ofApiKeys: true });
  await app.register(restApi, { prefix: '/api/v1/external', limiter: restLimiter });
  await app.register(openapiRoutes); // /api/v1/openapi.json and the reference page /api/docs, no key
  await app.register(mcpEndpoint, {
    prefix: '/mcp',
    limiter: new KeyRateLimiter('mcp', config.MCP_RATE_LIMIT, store, { ofApiKeys: true }),
  } as any);
  await app.register(adminApi, { prefix: '/admin/v1' });
  await app.register(publicRoutes);
  await app.register(dashboard);
  return app;
}

/**
 * The security headers of every answer (@fastify/helmet): nosniff, a referrer policy, HSTS when the public
 * URL is https, and a CSP that allows nothing for answers that are not pages (JSON, CSV, assets, errors).
 * The pages that have a CSP of their own (dashboard, hosted forms, unsubscribe, outbox message, API docs)
 * set it on their reply, which replaces this one: each stays exactly as strict as written there.
 */
function securityHeaders(config: Config): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    // the dashboard says DENY itself; hosted form pages must stay embeddable on the account's own site
    frameguard: false,
    // same-origin keeps the Origin header on the dashboard's own POSTs (its CSRF check reads it; under
    // no-referrer a browser sends "Origin: null") and sends no URL of ours, tokens included, to other sites
    referrerPolicy: { policy: 'same-origin' },
    // the open pixel and hosted images are loaded by webmail pages of other sites
    crossOriginResourcePolicy: false,
    strictTransportSecurity: config.publicUrl.startsWith('https://') ? { maxAge: 31_536_000 } : false,
  };
}
