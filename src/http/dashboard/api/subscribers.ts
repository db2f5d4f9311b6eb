// /app/api/subscribers: search (also by segment) and read subscribers, add, edit and delete one by hand,
// its activity from the event log, and notes; /app/api/overview: the subscriber counts with growth,
// recent campaigns and 30-day rates.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { overview } from '../../../domain/campaigns/overview.ts';
import * as pendingSignups from '../../../domain/forms/pendingSignups.ts';
import * as segmentList from '../../../domain/segments/subscriberList.ts';
import * as activity from '../../../domain/subscribers/activity.ts';
import * as notes from '../../../domain/subscribers/notes.ts';
import * as subscribers from '../../../domain/subscribers/subscribers.ts';
import { pageFields } from '../../../domain/paging.ts';
import { deleted, listed, jsonBody, ok, parse, pathId } from '../../rest/envelope.ts';

const NOT_FOUND = 'Subscriber not found';
const ActivityQuery = z.object({ ...pageFields(), type: activity.ActivityQuery.shape.type });

export async function subscriberRoutes(app: FastifyInstance) {
  app.get('/overview', async (req) => {
    const counts = subscribers.stats(app.db, req.member.accountId);
    const [c, o, pending] = await Promise.all([
      counts,
      overview(
        app.db,
        req.member.accountId,
        counts.then((n) => n.total),
      ),
      pendingSignups.countPending(app.db, req.member.accountId),
    ]);
    return ok({ ...c, ...o, pending_signups: pending });
  });

  app.get('/subscribers', async (req) => {
    const query = req.query;
    return listed('subscribers', await segmentList.list(app.db, req.member.accountId, query));
  });

  app.post('/subscribers', { config: { permission: 'edit' } }, async (req, reply) => {
    const sub = await subscribers.create(app.db, req.member.accountId, jsonBody(req.body), 'dashboard');
    return reply.code(201).send(ok(shown(sub)));
  });

  app.get('/subscribers/:id', async (req) =>
    ok(shown(await subscribers.getFull(app.db, req.member.accountId, { id: pathId(req.params, NOT_FOUND) }))),
  );

  // the REST update with the address editable too; every field, custom field and membership in one transaction
  app.put('/subscribers/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    const edit = jsonBody(req.body);
    await subscribers.update(app.db, req.member.accountId, id, edit, { allowEmail: true });
    return ok(shown(await subscribers.getFull(app.db, req.member.accountId, { id })));
  });

  app.delete('/subscribers/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    await subscribers.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Subscriber');
  });

  app.get('/subscribers/:id/activity', async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    const page = await activity.ofSubscriber(app.db, req.member.accountId, id, parse(ActivityQuery, req.query));
    return listed('activity', await activity.withNames(app.db, req.member.accountId, page));
  });

  app.post('/subscribers/:id/notes', { config: { permission: 'edit' } }, async (req, reply) => {
    const note = await notes.addNote(app.db, req.member.accountId, pathId(req.params, NOT_FOUND), jsonBody(req.body));
    return reply.code(201).send(ok(note));
  });
}

/**
 * A subscriber as the dashboard shows it: its row without the account (the session's own) and without
 * member_of, the database's copy of its group ids for the audience's reads, which may still name deleted
 * groups (the groups the page shows come with the subscriber).
 */
function shown<S extends { account_id: string; member_of: string[] }>(s: S): Omit<S, 'account_id' | 'member_of'> {
  const { account_id: _a, member_of: _m, ...rest } = s;
  return rest;
}
