// Liveness (`/api/health`, the spec's: is the database answering) and readiness (`/api/health/ready`:
// should a load balancer send this instance traffic — database, schema and job queue all ready). A
// readiness probe that fails takes the instance out of rotation without restarting it. Both are declared
// as operations, so the OpenAPI document lists them with the REST API's.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { pendingMigrations } from '../db/migrate.ts';
import * as r from './openapi/responses.ts';
import { route, type Operation } from './rest/operation.ts';

const DB_TIMEOUT_MS = 1000;

/** resolves with the value, or with `fallback` once `ms` have passed */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([p.catch(() => fallback), new Promise<T>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

const databaseAnswers = (app: FastifyInstance) =>
  within(
    sql`select 1`.execute(app.db).then(() => true),
    DB_TIMEOUT_MS,
    false,
  );

export const HEALTH_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/health',
    operationId: 'health',
    tag: 'Health',
    summary: 'Liveness: is the database answering',
    description: 'Public, no key and no envelope. 503 when the database does not answer within a second.',
    scope: 'public',
    spec: true,
    success: { status: 200, description: 'Healthy', schema: r.Healthy },
    unavailable: r.Down,
    // the health check reads nothing from the request: whatever the query holds, it answers its status
    textRule: 'replace',
    handler: async ({ app, reply }) => {
      // spec: 503 {status:'down', message} when unhealthy; the database must answer within 1 s
      if (!(await databaseAnswers(app)))
        return reply.code(503).send({ status: 'down', message: 'Database is not responding' });
      return {
        status: 'ok',
        message: 'Service is healthy',
        timestamp: new Date().toISOString(),
        version: app.config.version,
      };
    },
  },
  {
    method: 'get',
    path: '/api/health/ready',
    operationId: 'healthReady',
    tag: 'Health',
    summary: 'Readiness: database, schema and job queue',
    description: 'Public, no key and no envelope. For load balancers: 503 takes the instance out of rotation.',
    scope: 'public',
    spec: false,
    success: { status: 200, description: 'Ready', schema: r.Readiness },
    unavailable: r.Readiness,
    textRule: 'replace',
    handler: async ({ app, reply }) => {
      const database = await databaseAnswers(app);
      const pending = database ? await within(pendingMigrations(app.db), DB_TIMEOUT_MS, undefined) : undefined;
      const checks = {
        database: database ? 'ok' : 'not responding',
        migrations: pending === undefined ? 'unknown' : pending.length === 0 ? 'ok' : `${pending.length} pending`,
        queue: app.queue.running ? 'ok' : 'stopped',
      };
      const ready = Object.values(checks).every((c) => c === 'ok');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
    },
  },
];

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  for (const op of HEALTH_OPERATIONS) route(app, op);
}
