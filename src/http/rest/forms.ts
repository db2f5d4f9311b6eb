// REST routes for forms (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function formRoutes(_app: FastifyInstance) {}
