// /api/v1/external/warmup: our addition to the spec's REST surface. Warm-up plans of the account's sending
// domains (src/domain/campaigns/warmup.ts); they govern campaign sending, hence the campaigns scopes.
import type { FastifyInstance } from 'fastify';
import * as warmup from '../../domain/campaigns/warmup.ts';
import { ok, parse, pathId } from './envelope.ts';

export async function warmupRoutes(app: FastifyInstance) {
  app.get('/warmup', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok({ plans: await warmup.list(app.db, app.config, req.key.accountId) });
  });

  app.post('/warmup', { config: { scope: 'campaigns:write' } }, async (req, reply) => {
    const plan = await warmup.create(app.db, app.config, req.key.accountId, parse(warmup.NewPlan, req.body));
    return reply.code(201).send(ok(plan));
  });

  app.get('/warmup/:id', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok(await warmup.get(app.db, app.config, req.key.accountId, pathId(req.params, warmup.NOT_FOUND)));
  });

  app.delete('/warmup/:id', { config: { scope: 'campaigns:write' } }, async (req) => {
    await warmup.remove(app.db, req.key.accountId, pathId(req.params, warmup.NOT_FOUND));
    return { success: true, message: 'Warm-up plan deleted successfully' };
  });
}
