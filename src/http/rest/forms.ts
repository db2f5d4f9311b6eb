// /api/v1/external/forms: our addition to the spec's REST surface; forms are created here until the
// dashboard exists. Scopes forms:read / forms:write, like the form tools.
import * as forms from '../../domain/forms/forms.ts';
import { PageQuery } from '../../domain/paging.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { deleteOperation, ID, type Resource } from './operation.ts';

const NOT_FOUND = 'Form not found';

export const formRoutes: Resource = {
  operations: [
    {
      method: 'post',
      path: '/forms',
      operationId: 'createForm',
      tag: 'Forms',
      summary: 'Create a signup form',
      scope: 'forms:write',
      spec: false,
      body: forms.NewForm,
      success: {
        status: 201,
        description: 'Created, with its page URL and embed markup',
        schema: okOf(r.FormWithEmbed),
      },
      handler: async ({ app, req, reply }) => {
        const form = await forms.create(app.db, req.key.accountId, jsonBody(req.body));
        return reply
          .code(201)
          .send(ok(await forms.getWithEmbed(app.db, req.key.accountId, form.id, app.config.publicUrl)));
      },
    },
    {
      method: 'get',
      path: '/forms',
      operationId: 'listForms',
      tag: 'Forms',
      summary: 'List forms',
      scope: 'forms:read',
      spec: false,
      query: PageQuery,
      success: { status: 200, description: 'One page', schema: pageOf('forms', r.Form) },
      handler: async ({ app, req }) => {
        const page = await forms.list(app.db, req.key.accountId, req.query);
        return listed('forms', page);
      },
    },
    {
      method: 'get',
      path: '/forms/{id}',
      operationId: 'getForm',
      tag: 'Forms',
      summary: 'Get a form, with its page URL and embed markup',
      scope: 'forms:read',
      spec: false,
      params: ID('form'),
      success: { status: 200, description: 'The form', schema: okOf(r.FormWithEmbed) },
      handler: async ({ app, req }) => {
        return ok(
          await forms.getWithEmbed(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), app.config.publicUrl),
        );
      },
    },
    {
      method: 'put',
      path: '/forms/{id}',
      operationId: 'updateForm',
      tag: 'Forms',
      summary: 'Update a form',
      scope: 'forms:write',
      spec: false,
      params: ID('form'),
      body: forms.FormUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Form) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await forms.update(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/forms/{id}',
      operationId: 'deleteForm',
      tag: 'Forms',
      summary: 'Delete a form',
      scope: 'forms:write',
      params: ID('form'),
      thing: 'Form',
      notFound: NOT_FOUND,
      remove: forms.remove,
    }),
    {
      method: 'get',
      path: '/forms/{id}/subscribers',
      operationId: 'listFormSubscribers',
      tag: 'Forms',
      summary: 'List who signed up through a form',
      scope: 'forms:read',
      spec: false,
      params: ID('form'),
      query: PageQuery,
      success: { status: 200, description: 'One page', schema: pageOf('subscribers', r.FormSignup) },
      handler: async ({ app, req }) => {
        const page = await forms.signups(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return listed('subscribers', page);
      },
    },
  ],
};
