// /api/v1/external/groups: our addition to the spec's REST surface (the spec shows groups only as tools).
// Same rules as the MCP group tools, because both call the domain's groups module; scopes groups:read / groups:write.
import type { FastifyInstance } from 'fastify';
import * as groups from '../../domain/subscribers/groups.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = 'Group not found';

export async function groupRoutes(app: FastifyInstance) {
  app.get('/groups', { config: { scope: 'groups:read' } }, async (req) => {
    const page = await groups.list(app.db, req.key.accountId, req.query as groups.ListQuery);
    return ok({ groups: page.items, pagination: pagination(page) });
  });

  app.post('/groups', { config: { scope: 'groups:write' } }, async (req, reply) => {
    return reply.code(201).send(ok(await groups.create(app.db, req.key.accountId, parse(groups.NewGroup, req.body))));
  });

  app.get('/groups/:id', { config: { scope: 'groups:read' } }, async (req) => {
    return ok(await groups.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
  });

  app.put('/groups/:id', { config: { scope: 'groups:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await groups.update(app.db, req.key.accountId, id, parse(groups.GroupUpdate, req.body)));
  });

  app.delete('/groups/:id', { config: { scope: 'groups:write' } }, async (req) => {
    await groups.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Group deleted successfully' };
  });

  app.get('/groups/:id/subscribers', { config: { scope: 'groups:read' } }, async (req) => {
    const page = await groups.members(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as groups.MembersQuery,
    );
    return ok({ subscribers: page.items, pagination: pagination(page) });
  });

  app.post('/groups/:id/subscribers/:subscriberId', { config: { scope: 'groups:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(
      await groups.assign(app.db, req.key.accountId, id, pathId(req.params, 'Subscriber not found', 'subscriberId')),
    );
  });

  app.delete('/groups/:id/subscribers/:subscriberId', { config: { scope: 'groups:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(
      await groups.unassign(app.db, req.key.accountId, id, pathId(req.params, 'Subscriber not found', 'subscriberId')),
    );
  });
}
