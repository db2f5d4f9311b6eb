// Public unsubscribe routes. Not built yet.
import type { FastifyInstance } from 'fastify';

export async function unsubscribePages(_app: FastifyInstance) {}
