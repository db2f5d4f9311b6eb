// Liveness (`/api/health`, the spec's: is the database answering) and readiness (`/api/health/ready`:
// should a load balancer send this instance traffic — database, schema and job queue all ready). A
// readiness probe that fails takes the instance out of rotation without restarting it.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { pendingMigrations } from '../db/migrate.ts';

const DB_TIMEOUT_MS = 1000;

/** resolves with the value, or with `fallback` once `ms` have passed */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([p.catch(() => fallback), new Promise<T>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const databaseAnswers = () =>
    within(
      sql`select 1`.execute(app.db).then(() => true),
      DB_TIMEOUT_MS,
      false,
    );

  // the health check reads nothing from the request: whatever the query holds, it answers its status
  app.get('/api/health', { config: { textRule: 'replace' } }, async (_req, reply) => {
    // spec: 503 {status:'down', message} when unhealthy; the database must answer within 1 s
    if (!(await databaseAnswers()))
      return reply.code(503).send({ status: 'down', message: 'Database is not responding' });
    return {
      status: 'ok',
      message: 'Service is healthy',
      timestamp: new Date().toISOString(),
      version: app.config.version,
    };
  });

  app.get('/api/health/ready', { config: { textRule: 'replace' } }, async (_req, reply) => {
    const database = await databaseAnswers();
    const pending = database ? await within(pendingMigrations(app.db), DB_TIMEOUT_MS, undefined) : undefined;
    const checks = {
      database: database ? 'ok' : 'not responding',
      migrations: pending === undefined ? 'unknown' : pending.length === 0 ? 'ok' : `${pending.length} pending`,
      queue: app.queue.running ? 'ok' : 'stopped',
    };
    const ready = Object.values(checks).every((c) => c === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
}
