// /app/api/groups: the groups page (list with subscriber and active counts, create, rename, delete), and
// the subscribers list's bulk actions and CSV export. The same domain functions as REST /groups,
// /subscribers/bulk and /subscribers/export, behind the member's role instead of a key's scope; the list's
// segment filter (segment_id) narrows a filter selection and the export too.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import * as segmentList from '../../../domain/segments/subscriberList.ts';
import * as groups from '../../../domain/subscribers/groups.ts';
import { deleted, listed, jsonBody, ok, pathId } from '../../rest/envelope.ts';

const NOT_FOUND = 'Group not found';

export async function groupRoutes(app: FastifyInstance) {
  app.get('/groups', async (req) => {
    return listed('groups', await groups.list(app.db, req.member.accountId, req.query));
  });

  app.post('/groups', { config: { permission: 'edit' } }, async (req, reply) => {
    return reply.code(201).send(ok(await groups.create(app.db, req.member.accountId, jsonBody(req.body))));
  });

  app.get('/groups/:id', async (req) =>
    ok(await groups.get(app.db, req.member.accountId, pathId(req.params, NOT_FOUND))),
  );

  app.put('/groups/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await groups.update(app.db, req.member.accountId, id, jsonBody(req.body)));
  });

  app.delete('/groups/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    await groups.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Group');
  });

  app.post('/subscribers/bulk', { config: { permission: 'edit' } }, async (req) => {
    return ok(await segmentList.bulkApply(app.db, req.member.accountId, jsonBody(req.body)));
  });

  app.get('/subscribers/export', async (req, reply) => {
    const query = req.query;
    const csv = await segmentList.exportCsv(app.db, req.member.accountId, query);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="subscribers.csv"')
      .send(Readable.from(csv));
  });
}
