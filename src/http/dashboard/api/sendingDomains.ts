// /app/api/sending-domains: Settings → Sending domains. Reads for every member, changes 'edit' (whoever may
// send campaigns may authenticate their domain); the same domain calls as REST.
import type { FastifyInstance } from 'fastify';
import * as sending from '../../../domain/sending/domains.ts';
import { deleted, jsonBody, listed, ok, pathId, wholeList } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };

export async function sendingDomainRoutes(app: FastifyInstance) {
  app.get('/sending-domains', async (req) =>
    listed('sending_domains', wholeList(await sending.list(app.db, app.config, req.member.accountId))),
  );

  app.post('/sending-domains', edit, async (req, reply) => {
    const created = await sending.add(app.db, app.config, req.member.accountId, jsonBody(req.body));
    return reply.code(201).send(ok(created));
  });

  app.post('/sending-domains/:id/verify', edit, async (req) => {
    const id = pathId(req.params, sending.NOT_FOUND);
    return ok(await sending.verify(app.db, app.config, req.member.accountId, id));
  });

  app.delete('/sending-domains/:id', edit, async (req) => {
    const id = pathId(req.params, sending.NOT_FOUND);
    await sending.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Sending domain');
  });
}
