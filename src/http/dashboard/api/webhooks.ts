// /app/api/webhooks: the dashboard's webhooks page: list, create, edit, delete, test event, delivery log and
// replay, through the same domain functions as REST and MCP. Every member reads; changing a webhook, which
// decides where the account's data is sent, needs 'manage'. The secret is shown once, in the create answer.
import type { FastifyInstance } from 'fastify';
import { PageQuery } from '../../../domain/paging.ts';
import { eventCatalog } from '../../../domain/webhooks/catalog.ts';
import * as webhooks from '../../../domain/webhooks/webhooks.ts';
import { deleted, listed, jsonBody, ok, parse, pathId, wholeList } from '../../rest/envelope.ts';

const manage = { config: { permission: 'manage' as const } };
const id = (params: unknown) => pathId(params, webhooks.NOT_FOUND);

export async function webhookRoutes(app: FastifyInstance) {
  app.get('/webhook-events', async () => listed('events', wholeList(eventCatalog())));

  app.get('/webhooks', async (req) => {
    return listed('webhooks', await webhooks.list(app.db, req.member.accountId, parse(PageQuery, req.query)));
  });

  app.post('/webhooks', manage, async (req, reply) => {
    const input = jsonBody(req.body);
    const created = await webhooks.create(app.db, req.member.accountId, input, app.config);
    return reply.code(201).send(ok(created, 'Copy the signing secret now: the dashboard shows it only once'));
  });

  app.get('/webhooks/:id', async (req) => {
    const {
      secret: _secret,
      recent_deliveries: _recent,
      ...hook
    } = await webhooks.get(app.db, req.member.accountId, id(req.params));
    return ok(hook);
  });

  app.put('/webhooks/:id', manage, async (req) => {
    const input = jsonBody(req.body);
    return ok(await webhooks.update(app.db, req.member.accountId, id(req.params), input, app.config));
  });

  app.delete('/webhooks/:id', manage, async (req) => {
    const wid = id(req.params);
    await webhooks.remove(app.db, req.member.accountId, wid);
    return deleted(wid, 'Webhook');
  });

  app.get('/webhooks/:id/deliveries', async (req) => {
    const query = req.query;
    const page = await webhooks.deliveries(app.db, req.member.accountId, id(req.params), query);
    return listed('deliveries', page);
  });

  app.post('/webhooks/:id/test', manage, async (req) =>
    ok(await webhooks.test(app.db, req.member.accountId, id(req.params), app.config)),
  );

  app.post('/webhooks/:id/deliveries/:deliveryId/replay', manage, async (req, reply) => {
    const deliveryId = pathId(req.params, webhooks.DELIVERY_NOT_FOUND, 'deliveryId');
    const queued = await webhooks.replay(app.db, req.member.accountId, id(req.params), deliveryId);
    return reply.code(202).send(ok(queued, 'Replay queued'));
  });
}
