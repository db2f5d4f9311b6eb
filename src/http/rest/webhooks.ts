// /api/v1/external/webhooks: our addition to the spec's REST surface (the spec shows webhooks only as tools).
// CRUD, the delivery log, a test event and the replay of a delivery; same rules as the MCP webhook tools (src/domain/webhooks/).
// Scopes webhooks:read / webhooks:write.
import type { FastifyInstance } from 'fastify';
import * as webhooks from '../../domain/webhooks/webhooks.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = webhooks.NOT_FOUND;

export async function webhookRoutes(app: FastifyInstance) {
  app.get('/webhooks', { config: { scope: 'webhooks:read' } }, async (req) => {
    const page = await webhooks.list(app.db, req.key.accountId, req.query as webhooks.ListQuery);
    return ok({ webhooks: page.items, pagination: pagination(page) });
  });

  app.post('/webhooks', { config: { scope: 'webhooks:write' } }, async (req, reply) => {
    const created = await webhooks.create(app.db, req.key.accountId, parse(webhooks.NewWebhook, req.body), app.config);
    return reply.code(201).send(ok(created));
  });

  app.get('/webhooks/:id', { config: { scope: 'webhooks:read' } }, async (req) => {
    return ok(await webhooks.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
  });

  app.put('/webhooks/:id', { config: { scope: 'webhooks:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(
      await webhooks.update(app.db, req.key.accountId, id, parse(webhooks.WebhookUpdate, req.body), app.config),
    );
  });

  app.delete('/webhooks/:id', { config: { scope: 'webhooks:write' } }, async (req) => {
    await webhooks.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Webhook deleted successfully' };
  });

  app.get('/webhooks/:id/deliveries', { config: { scope: 'webhooks:read' } }, async (req) => {
    const page = await webhooks.deliveries(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as webhooks.DeliveriesQuery,
    );
    return ok({ deliveries: page.items, pagination: pagination(page) });
  });

  app.post('/webhooks/:id/test', { config: { scope: 'webhooks:write' } }, async (req) => {
    return ok(await webhooks.test(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), app.config));
  });

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/replay',
    { config: { scope: 'webhooks:write' } },
    async (req, reply) => {
      const id = pathId(req.params, NOT_FOUND);
      const deliveryId = pathId(req.params, webhooks.DELIVERY_NOT_FOUND, 'deliveryId');
      return reply.code(202).send(ok(await webhooks.replay(app.db, req.key.accountId, id, deliveryId)));
    },
  );
}
