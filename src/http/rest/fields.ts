// /api/v1/external/fields: custom-field definitions (our addition, so custom_fields can be used at all).
import type { FastifyInstance } from 'fastify';
import * as fields from '../../domain/subscribers/fields.ts';
import { ok, parse, pathId } from './envelope.ts';

export async function fieldRoutes(app: FastifyInstance) {
  app.get('/fields', { config: { scope: 'subscribers:read' } }, async (req) =>
    ok(await fields.list(app.db, req.key.accountId)),
  );
  app.post('/fields', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    return reply.code(201).send(ok(await fields.create(app.db, req.key.accountId, parse(fields.NewField, req.body))));
  });
  app.delete('/fields/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    await fields.remove(app.db, req.key.accountId, pathId(req.params, 'Field not found'));
    return { success: true, message: 'Field deleted successfully' };
  });
}
