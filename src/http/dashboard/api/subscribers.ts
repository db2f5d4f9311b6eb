// /app/api/subscribers: search and read subscribers, add one by hand, and add notes.
import type { FastifyInstance } from 'fastify';
import * as notes from '../../../domain/subscribers/notes.ts';
import * as subscribers from '../../../domain/subscribers/subscribers.ts';
import { ok, pagination, parse, pathId } from '../../rest/envelope.ts';

export async function subscriberRoutes(app: FastifyInstance) {
  app.get('/overview', async (req) => ok(await subscribers.stats(app.db, req.member.accountId)));

  app.get('/subscribers', async (req) => {
    const page = await subscribers.list(app.db, req.member.accountId, parse(subscribers.ListQuery, req.query));
    return ok({ subscribers: page.items, pagination: pagination(page) });
  });

  app.post('/subscribers', { config: { permission: 'edit' } }, async (req, reply) => {
    const sub = await subscribers.create(
      app.db,
      req.member.accountId,
      parse(subscribers.NewSubscriber, req.body),
      'dashboard',
    );
    return reply.code(201).send(ok(sub));
  });

  app.get('/subscribers/:id', async (req) =>
    ok(await subscribers.getFull(app.db, req.member.accountId, { id: pathId(req.params, 'Subscriber not found') })),
  );

  app.post('/subscribers/:id/notes', { config: { permission: 'edit' } }, async (req, reply) => {
    const note = await notes.addNote(
      app.db,
      req.member.accountId,
      pathId(req.params, 'Subscriber not found'),
      parse(notes.NewNote, req.body),
    );
    return reply.code(201).send(ok(note));
  });
}
