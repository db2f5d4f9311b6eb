// REST routes for automations (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function automationRoutes(_app: FastifyInstance) {}
