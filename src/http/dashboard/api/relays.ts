// /app/api/relays: Settings → Relays. Reads for every member, changes 'edit' (as sending domains); the same
// relay calls as REST.
import type { FastifyInstance } from 'fastify';
import * as relays from '../../../domain/sending/relays.ts';
import { deleted, jsonBody, listed, ok, pathId, wholeList } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };

export async function relayRoutes(app: FastifyInstance) {
  app.get('/relays', async (req) => listed('relays', wholeList(await relays.list(app.db, req.member.accountId))));

  app.post('/relays', edit, async (req, reply) => {
    const created = await relays.add(app.db, app.config, req.member.accountId, jsonBody(req.body));
    return reply.code(201).send(ok(created));
  });

  app.post('/relays/:id/test', edit, async (req) => {
    const id = pathId(req.params, relays.NOT_FOUND);
    return ok(await relays.sendTest(app.db, app.config, app.transport, req.member.accountId, id, jsonBody(req.body)));
  });

  app.delete('/relays/:id', edit, async (req) => {
    const id = pathId(req.params, relays.NOT_FOUND);
    await relays.remove(app.db, app.transport, req.member.accountId, id);
    return deleted(id, 'Relay');
  });
}
