// REST routes for groups (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function groupRoutes(_app: FastifyInstance) {}
