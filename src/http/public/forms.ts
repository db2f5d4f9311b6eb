// Public forms routes. Not built yet.
import type { FastifyInstance } from 'fastify';

export async function formPages(_app: FastifyInstance) {}
