// REST routes for imports (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function importRoutes(_app: FastifyInstance) {}
