// /api/v1/external/templates: the starter block documents and the account's saved templates; a new
// campaign starts from one with POST /campaigns {template_id}. Scopes campaigns:read / campaigns:write.
import * as templates from '../../domain/content/templates.ts';
import { okOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, ok } from './envelope.ts';
import { deleteOperation, type Resource } from './operation.ts';
import { z } from 'zod';

export const templateRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/templates',
      operationId: 'listTemplates',
      tag: 'Templates',
      summary: 'List starter and saved templates',
      description:
        '`kind` filters saved templates by what they were saved for; starters suit every kind. `thumbnails=true` adds each one’s rendered HTML.',
      scope: 'campaigns:read',
      spec: false,
      query: templates.ListQuery,
      success: {
        status: 200,
        description: 'Every template',
        schema: okOf(z.object({ templates: z.array(r.Template) })),
      },
      handler: async ({ app, req }) => ok({ templates: await templates.list(app.db, req.key.accountId, req.query) }),
    },
    {
      method: 'post',
      path: '/templates',
      operationId: 'createTemplate',
      tag: 'Templates',
      summary: 'Save a template from a block document or a block campaign',
      scope: 'campaigns:write',
      spec: false,
      body: templates.NewTemplate,
      success: { status: 201, description: 'Saved', schema: okOf(r.Template) },
      handler: async ({ app, req, reply }) =>
        reply.code(201).send(ok(await templates.create(app.db, req.key.accountId, jsonBody(req.body)))),
    },
    deleteOperation({
      path: '/templates/{id}',
      operationId: 'deleteTemplate',
      tag: 'Templates',
      summary: 'Delete a saved template',
      scope: 'campaigns:write',
      params: { id: "The saved template's id (UUID)." },
      thing: 'Template',
      notFound: templates.NOT_FOUND,
      remove: templates.remove,
    }),
  ],
};
