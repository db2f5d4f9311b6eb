// POST /mcp: the JSON-RPC 2.0 tool endpoint. Not built yet.
import type { FastifyInstance } from 'fastify';

export async function mcpEndpoint(_app: FastifyInstance) {}
