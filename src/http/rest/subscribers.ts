// /api/v1/external/subscribers: the spec's subscriber endpoints. Parse, call the domain, pick the spec's fields.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import * as bulk from '../../domain/subscribers/bulk.ts';
import { exportCsv } from '../../domain/subscribers/export.ts';
import * as subscribers from '../../domain/subscribers/subscribers.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';
import { pick } from '../pick.ts';
import { SUBSCRIBER_VIEW } from '../subscriberViews.ts';

const { create: CREATE_FIELDS, get: GET_FIELDS, update: UPDATE_FIELDS } = SUBSCRIBER_VIEW;

const bodies = new WeakMap<object, string>();

export async function subscriberRoutes(app: FastifyInstance) {
  app.get('/subscribers', { config: { scope: 'subscribers:read' } }, async (req) => {
    const page = await subscribers.list(app.db, req.key.accountId, req.query as subscribers.ListQuery);
    return ok({ subscribers: page.items, pagination: pagination(page) });
  });

  app.get('/subscribers/stats', { config: { scope: 'subscribers:read' } }, async (req) => {
    return ok(await subscribers.stats(app.db, req.key.accountId));
  });

  // our addition to the spec: one operation over many subscribers (docs/api.md, "Bulk actions and export")
  app.post('/subscribers/bulk', { config: { scope: 'subscribers:write' } }, async (req) => {
    return ok(await bulk.apply(app.db, req.key.accountId, parse(bulk.BulkAction, req.body)));
  });

  app.get('/subscribers/export', { config: { scope: 'subscribers:read' } }, async (req, reply) => {
    const csv = await exportCsv(app.db, req.key.accountId, req.query as bulk.Filter);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="subscribers.csv"')
      .send(Readable.from(csv));
  });

  app.post('/subscribers', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    const sub = await subscribers.create(app.db, req.key.accountId, parse(subscribers.NewSubscriber, req.body), 'api');
    return reply.code(201).send(ok(pick(sub, CREATE_FIELDS)));
  });

  app.get('/subscribers/:id', { config: { scope: 'subscribers:read' } }, async (req, reply) => {
    const id = pathId(req.params, 'Subscriber not found');
    const sub = await subscribers.getFull(app.db, req.key.accountId, { id });
    // a subscriber served from the read cache is the same frozen object on every hit: its body is
    // serialised once (JSON.stringify was 8 % of the server's CPU on this route)
    let body = bodies.get(sub);
    if (body === undefined) bodies.set(sub, (body = JSON.stringify(ok(pick(sub, GET_FIELDS)))));
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.put('/subscribers/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    const id = pathId(req.params, 'Subscriber not found');
    return ok(
      pick(
        await subscribers.update(app.db, req.key.accountId, id, parse(subscribers.SubscriberUpdate, req.body)),
        UPDATE_FIELDS,
      ),
    );
  });

  app.delete('/subscribers/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    await subscribers.remove(app.db, req.key.accountId, pathId(req.params, 'Subscriber not found'));
    return { success: true, message: 'Subscriber deleted successfully' };
  });
}
