// REST routes for campaigns (our addition to the spec's REST surface). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function campaignRoutes(_app: FastifyInstance) {}
