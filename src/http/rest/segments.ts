// /api/v1/external/segments: our addition to the spec's REST surface; segments are created here until the
// dashboard exists. Scopes follow the spec's tool table, which puts segments under subscribers.
import type { FastifyInstance } from 'fastify';
import * as segments from '../../domain/segments/segments.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = 'Segment not found';

export async function segmentRoutes(app: FastifyInstance) {
  app.post('/segments', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    return reply
      .code(201)
      .send(ok(await segments.create(app.db, req.key.accountId, parse(segments.NewSegment, req.body))));
  });

  app.get('/segments', { config: { scope: 'subscribers:read' } }, async (req) => {
    const page = await segments.list(app.db, req.key.accountId, req.query as segments.PageQuery);
    return ok({ segments: page.items, pagination: pagination(page) });
  });

  app.get('/segments/:id', { config: { scope: 'subscribers:read' } }, async (req) => {
    return ok(await segments.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
  });

  app.put('/segments/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await segments.update(app.db, req.key.accountId, id, parse(segments.SegmentUpdate, req.body)));
  });

  app.delete('/segments/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    await segments.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Segment deleted successfully' };
  });

  app.get('/segments/:id/subscribers', { config: { scope: 'subscribers:read' } }, async (req) => {
    const page = await segments.members(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as segments.PageQuery,
    );
    return ok({ segment: page.segment, subscribers: page.items, pagination: pagination(page) });
  });
}
