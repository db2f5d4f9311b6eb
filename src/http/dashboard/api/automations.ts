// /app/api/automations: the dashboard's automations list, builder and activity. Reads for every member,
// changes need 'edit'. Each route calls the automations domain, the same functions as REST and MCP.
import type { FastifyInstance } from 'fastify';
import * as automations from '../../../domain/automations/automations.ts';
import { deleted, listed, jsonBody, ok, pathId, wholeList } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };
const id = (params: unknown) => pathId(params, automations.NOT_FOUND);

export async function automationRoutes(app: FastifyInstance) {
  app.get('/automations', async (req) => {
    return listed('automations', await automations.list(app.db, req.member.accountId, req.query));
  });

  app.post('/automations', edit, async (req, reply) => {
    const input = jsonBody(req.body);
    return reply.code(201).send(ok(await automations.create(app.db, req.member.accountId, input)));
  });

  app.get('/automations/:id', async (req) => ok(await automations.get(app.db, req.member.accountId, id(req.params))));

  app.put('/automations/:id', edit, async (req) => {
    const input = jsonBody(req.body);
    return ok(await automations.update(app.db, req.member.accountId, id(req.params), input));
  });

  app.delete('/automations/:id', edit, async (req) => {
    const aid = id(req.params);
    await automations.remove(app.db, req.member.accountId, aid);
    return deleted(aid, 'Automation');
  });

  app.post('/automations/:id/enable', edit, async (req) =>
    ok(await automations.setEnabled(app.db, req.member.accountId, id(req.params), true)),
  );

  app.post('/automations/:id/disable', edit, async (req) =>
    ok(await automations.setEnabled(app.db, req.member.accountId, id(req.params), false)),
  );

  app.get('/automations/:id/activity', async (req) => {
    const query = req.query;
    const page = await automations.activity(app.db, req.member.accountId, id(req.params), query);
    return listed('runs', page);
  });

  app.get('/automations/:id/emails', async (req) =>
    listed('steps', wholeList(await automations.emailStatsBySteps(app.db, req.member.accountId, id(req.params)))),
  );
}
