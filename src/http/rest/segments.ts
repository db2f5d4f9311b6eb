// REST routes for segments (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function segmentRoutes(_app: FastifyInstance) {}
