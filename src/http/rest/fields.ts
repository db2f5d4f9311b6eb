// /api/v1/external/fields: custom-field definitions (our addition, so custom_fields can be used at all).
import { pageOfWhole, WholeListQuery } from '../../domain/paging.ts';
import * as fields from '../../domain/subscribers/fields.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

export const fieldRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/fields',
      operationId: 'listFields',
      tag: 'Custom fields',
      summary: 'List custom-field definitions',
      scope: 'subscribers:read',
      spec: false,
      query: WholeListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('fields', r.Field) },
      handler: async ({ app, req }) => {
        const page = pageOfWhole(await fields.list(app.db, req.key.accountId), req.query);
        return listed('fields', page);
      },
    },
    {
      method: 'post',
      path: '/fields',
      operationId: 'createField',
      tag: 'Custom fields',
      summary: 'Define a custom field',
      scope: 'subscribers:write',
      spec: false,
      body: fields.NewField,
      success: { status: 201, description: 'Created', schema: okOf(r.Field) },
      errors: [conflict('A field with this key already exists.')],
      handler: async ({ app, req, reply }) => {
        return reply.code(201).send(ok(await fields.create(app.db, req.key.accountId, jsonBody(req.body))));
      },
    },
    deleteOperation({
      path: '/fields/{id}',
      operationId: 'deleteField',
      tag: 'Custom fields',
      summary: 'Delete a custom field and the values subscribers hold',
      scope: 'subscribers:write',
      params: ID('field'),
      thing: 'Field',
      notFound: 'Field not found',
      remove: fields.remove,
    }),
  ],
};
