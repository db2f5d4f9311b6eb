// /app/api/fields: the account's custom-field definitions (subscribers/fields.ts, as REST /fields): list,
// create, rename and delete. Reading is open to every member; changes need 'edit'.
import type { FastifyInstance } from 'fastify';
import * as fields from '../../../domain/subscribers/fields.ts';
import { deleted, listed, jsonBody, ok, pathId, wholeList } from '../../rest/envelope.ts';

const NOT_FOUND = 'Field not found';

export async function fieldRoutes(app: FastifyInstance) {
  app.get('/fields', async (req) => listed('fields', wholeList(await fields.list(app.db, req.member.accountId))));

  app.post('/fields', { config: { permission: 'edit' } }, async (req, reply) => {
    const field = await fields.create(app.db, req.member.accountId, jsonBody(req.body));
    return reply.code(201).send(ok(field));
  });

  app.put('/fields/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await fields.rename(app.db, req.member.accountId, id, jsonBody(req.body)));
  });

  app.delete('/fields/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    await fields.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Field');
  });
}
