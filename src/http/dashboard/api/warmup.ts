// /app/api/warmup: the Settings page's warm-up plans of the account's sending domains. Reads for every
// member, writes 'edit' (whoever may send campaigns may pace them); the same domain calls as REST.
import type { FastifyInstance } from 'fastify';
import * as warmup from '../../../domain/campaigns/warmup.ts';
import { deleted, jsonBody, listed, ok, pathId, wholeList } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };

export async function warmupRoutes(app: FastifyInstance) {
  app.get('/warmup', async (req) =>
    listed('plans', wholeList(await warmup.list(app.db, app.config, req.member.accountId))),
  );

  app.post('/warmup', edit, async (req, reply) => {
    const plan = await warmup.create(app.db, app.config, req.member.accountId, jsonBody(req.body));
    return reply.code(201).send(ok(plan));
  });

  app.delete('/warmup/:id', edit, async (req) => {
    const id = pathId(req.params, warmup.NOT_FOUND);
    await warmup.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Warm-up plan');
  });
}
