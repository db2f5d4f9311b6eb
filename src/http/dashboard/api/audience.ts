// /app/api/segments, /app/api/forms, /app/api/signups and /app/api/audience: segments (list, open, create, edit, delete,
// and the live count of a filter not saved yet) and signup forms (list, open, create, edit, delete), and
// the vocabulary the segment builder offers (fields by kind, the operators each kind takes, groups). The
// rule table itself stays in the domain (segments/rules.ts); the same functions as REST and MCP.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import * as fields from '../../../domain/subscribers/fields.ts';
import * as forms from '../../../domain/forms/forms.ts';
import * as pendingSignups from '../../../domain/forms/pendingSignups.ts';
import * as groups from '../../../domain/subscribers/groups.ts';
import { OPERATORS_BY_KIND } from '../../../domain/segments/rules.ts';
import * as segments from '../../../domain/segments/segments.ts';
import { STATUSES } from '../../../domain/subscribers/subscribers.ts';
import { deleted, jsonBody, listed, ok, parse, pathId } from '../../rest/envelope.ts';

const SEGMENT_NOT_FOUND = 'Segment not found';
const SIGNUP_NOT_FOUND = 'Sign-up not found';
// a rule tree the segment editor counts before saving; the segments domain parses the tree itself
const DraftFilter = z.object({ filter: z.unknown() });
const BUILT_IN = [
  { field: 'email', label: 'Email', kind: 'email' },
  { field: 'first_name', label: 'First name', kind: 'text' },
  { field: 'last_name', label: 'Last name', kind: 'text' },
  { field: 'phone', label: 'Phone', kind: 'text' },
  { field: 'status', label: 'Status', kind: 'status' },
  { field: 'created_at', label: 'Subscribed', kind: 'created_at' },
  { field: 'group', label: 'Group', kind: 'group' },
];

export async function audienceRoutes(app: FastifyInstance) {
  app.get('/audience', async (req) => {
    const accountId = req.member.accountId;
    const [custom, groupPage] = [
      await fields.list(app.db, accountId),
      await groups.list(app.db, accountId, { per_page: 100 }),
    ];
    return ok({
      fields: [
        ...BUILT_IN,
        ...custom.map((f) => ({ field: `custom_fields.${f.key}`, label: f.name, kind: f.type, key: f.key })),
      ],
      operators: OPERATORS_BY_KIND,
      statuses: STATUSES,
      groups: groupPage.items.map((g) => ({ id: g.id, name: g.name })),
    });
  });

  app.get('/segments', async (req) => {
    return listed('segments', await segments.list(app.db, req.member.accountId, req.query));
  });
  app.post('/segments', { config: { permission: 'edit' } }, async (req, reply) => {
    return reply.code(201).send(ok(await segments.create(app.db, req.member.accountId, jsonBody(req.body))));
  });
  app.post('/segments/count', async (req) => {
    const { filter } = parse(DraftFilter, req.body);
    return ok({ count: await segments.countDraft(app.db, req.member.accountId, filter) });
  });
  app.get('/segments/:id', async (req) =>
    ok(await segments.get(app.db, req.member.accountId, pathId(req.params, SEGMENT_NOT_FOUND))),
  );
  app.put('/segments/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, SEGMENT_NOT_FOUND);
    return ok(await segments.update(app.db, req.member.accountId, id, jsonBody(req.body)));
  });
  app.delete('/segments/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, SEGMENT_NOT_FOUND);
    await segments.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Segment');
  });

  app.get('/forms', async (req) => {
    return listed('forms', await forms.list(app.db, req.member.accountId, req.query));
  });
  app.get('/forms/:id', async (req) =>
    ok(
      await forms.getWithEmbed(
        app.db,
        req.member.accountId,
        pathId(req.params, 'Form not found'),
        app.config.publicUrl,
      ),
    ),
  );
  app.post('/forms', { config: { permission: 'edit' } }, async (req, reply) => {
    const form = await forms.create(app.db, req.member.accountId, jsonBody(req.body));
    return reply
      .code(201)
      .send(ok(await forms.getWithEmbed(app.db, req.member.accountId, form.id, app.config.publicUrl)));
  });
  app.put('/forms/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, 'Form not found');
    await forms.update(app.db, req.member.accountId, id, jsonBody(req.body));
    return ok(await forms.getWithEmbed(app.db, req.member.accountId, id, app.config.publicUrl));
  });
  app.delete('/forms/:id', { config: { permission: 'edit' } }, async (req) => {
    const id = pathId(req.params, 'Form not found');
    await forms.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Form');
  });

  // double opt-in sign-ups waiting for their link: the same functions as REST /signups
  app.get('/signups', async (req) =>
    listed('signups', await pendingSignups.list(app.db, req.member.accountId, req.query)),
  );
  app.post('/signups/:id/resend', { config: { permission: 'edit' } }, async (req) =>
    ok(
      await pendingSignups.resend(
        app.db,
        { transport: app.transport, config: app.config },
        req.member.accountId,
        pathId(req.params, SIGNUP_NOT_FOUND),
      ),
    ),
  );
  app.post('/signups/:id/confirm', { config: { permission: 'edit' } }, async (req) =>
    ok(
      await pendingSignups.confirmByHand(
        app.db,
        req.member.accountId,
        pathId(req.params, SIGNUP_NOT_FOUND),
        req.member.email,
        jsonBody(req.body),
      ),
    ),
  );
}
