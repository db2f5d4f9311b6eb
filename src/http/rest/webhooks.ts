// REST routes for webhooks (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function webhookRoutes(_app: FastifyInstance) {}
