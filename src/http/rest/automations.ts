// /api/v1/external/automations: our addition to the spec's REST surface (the spec shows automations only
// as tools). CRUD, enable/disable and the run activity; same rules as the MCP automation tools
// (src/domain/automations/). Scopes automations:read / automations:write.
import type { FastifyInstance } from 'fastify';
import * as automations from '../../domain/automations/automations.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = automations.NOT_FOUND;

export async function automationRoutes(app: FastifyInstance) {
  app.get('/automations', { config: { scope: 'automations:read' } }, async (req) => {
    const page = await automations.list(app.db, req.key.accountId, req.query as automations.ListQuery);
    return ok({ automations: page.items, pagination: pagination(page) });
  });

  app.post('/automations', { config: { scope: 'automations:write' } }, async (req, reply) => {
    return reply
      .code(201)
      .send(ok(await automations.create(app.db, req.key.accountId, parse(automations.NewAutomation, req.body))));
  });

  app.get('/automations/:id', { config: { scope: 'automations:read' } }, async (req) => {
    return ok(await automations.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
  });

  app.put('/automations/:id', { config: { scope: 'automations:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await automations.update(app.db, req.key.accountId, id, parse(automations.AutomationUpdate, req.body)));
  });

  app.delete('/automations/:id', { config: { scope: 'automations:write' } }, async (req) => {
    await automations.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Automation deleted successfully' };
  });

  app.post('/automations/:id/enable', { config: { scope: 'automations:write' } }, async (req) => {
    return ok(await automations.setEnabled(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), true));
  });

  app.post('/automations/:id/disable', { config: { scope: 'automations:write' } }, async (req) => {
    return ok(await automations.setEnabled(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), false));
  });

  app.get('/automations/:id/activity', { config: { scope: 'automations:read' } }, async (req) => {
    const page = await automations.activity(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as automations.ActivityQuery,
    );
    return ok({ runs: page.items, pagination: pagination(page) });
  });
}
