// /api/v1/external/forms: our addition to the spec's REST surface; forms are created here until the
// dashboard exists. Scopes forms:read / forms:write, like the form tools.
import type { FastifyInstance } from 'fastify';
import * as forms from '../../domain/forms/forms.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = 'Form not found';

export async function formRoutes(app: FastifyInstance) {
  app.post('/forms', { config: { scope: 'forms:write' } }, async (req, reply) => {
    const form = await forms.create(app.db, req.key.accountId, parse(forms.NewForm, req.body));
    return reply.code(201).send(ok(await forms.getWithEmbed(app.db, req.key.accountId, form.id, app.config.publicUrl)));
  });

  app.get('/forms', { config: { scope: 'forms:read' } }, async (req) => {
    const page = await forms.list(app.db, req.key.accountId, req.query as forms.PageQuery);
    return ok({ forms: page.items, pagination: pagination(page) });
  });

  app.get('/forms/:id', { config: { scope: 'forms:read' } }, async (req) => {
    return ok(await forms.getWithEmbed(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), app.config.publicUrl));
  });

  app.put('/forms/:id', { config: { scope: 'forms:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await forms.update(app.db, req.key.accountId, id, parse(forms.FormUpdate, req.body)));
  });

  app.delete('/forms/:id', { config: { scope: 'forms:write' } }, async (req) => {
    await forms.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Form deleted successfully' };
  });

  app.get('/forms/:id/subscribers', { config: { scope: 'forms:read' } }, async (req) => {
    const page = await forms.signups(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as forms.PageQuery,
    );
    return ok({ subscribers: page.items, pagination: pagination(page) });
  });
}
