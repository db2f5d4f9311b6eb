// /app/api/keys: list, create and revoke the account's API keys (spec Authentication 2–3). The raw key is
// in the create response only; lists show the hint. Creating and revoking need the 'manage' permission.
import type { FastifyInstance } from 'fastify';
import { ALL_SCOPES } from '../../../domain/accounts/scopes.ts';
import * as apiKeys from '../../../domain/accounts/apiKeys.ts';
import { deleted, jsonBody, ok, pagination, pathId, wholeList } from '../../rest/envelope.ts';

export async function keyRoutes(app: FastifyInstance) {
  // the list shape of every dashboard list, with the scopes a new key may be given beside it
  app.get('/keys', async (req) => {
    const page = wholeList(await apiKeys.list(app.db, req.member.accountId));
    return ok({ keys: page.items, pagination: pagination(page), scopes: ALL_SCOPES });
  });

  app.post('/keys', { config: { permission: 'manage' } }, async (req, reply) => {
    const input = jsonBody(req.body);
    const key = await apiKeys.create(app.db, req.member.accountId, input, req.member.userId);
    return reply.code(201).send(ok(key, 'Copy this key now: it is shown only once and cannot be retrieved later'));
  });

  app.delete('/keys/:id', { config: { permission: 'manage' } }, async (req) => {
    const id = pathId(req.params, 'API key not found');
    await apiKeys.revoke(app.db, req.member.accountId, id);
    return deleted(id, 'API key', 'revoked');
  });
}
