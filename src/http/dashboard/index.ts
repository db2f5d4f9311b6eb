// The account dashboard (/ and /app/api). Not built yet.
import type { FastifyInstance } from 'fastify';

export async function dashboard(_app: FastifyInstance) {}
