// Public bounces routes. Not built yet.
import type { FastifyInstance } from 'fastify';

export async function bounceHooks(_app: FastifyInstance) {}
