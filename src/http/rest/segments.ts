// /api/v1/external/segments: our addition to the spec's REST surface; segments are created here until the
// dashboard exists. Scopes follow the spec's tool table, which puts segments under subscribers.
import { PageQuery } from '../../domain/paging.ts';
import * as segments from '../../domain/segments/segments.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pagination, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

const NOT_FOUND = 'Segment not found';

export const segmentRoutes: Resource = {
  operations: [
    {
      method: 'post',
      path: '/segments',
      operationId: 'createSegment',
      tag: 'Segments',
      summary: 'Create a segment (a saved filter)',
      scope: 'subscribers:write',
      spec: false,
      body: segments.NewSegment,
      success: { status: 201, description: 'Created', schema: okOf(r.Segment) },
      errors: [conflict('A segment with this name already exists.')],
      handler: async ({ app, req, reply }) => {
        return reply.code(201).send(ok(await segments.create(app.db, req.key.accountId, jsonBody(req.body))));
      },
    },
    {
      method: 'get',
      path: '/segments',
      operationId: 'listSegments',
      tag: 'Segments',
      summary: 'List segments',
      scope: 'subscribers:read',
      spec: false,
      query: PageQuery,
      success: { status: 200, description: 'One page', schema: pageOf('segments', r.Segment) },
      handler: async ({ app, req }) => {
        const page = await segments.list(app.db, req.key.accountId, req.query);
        return listed('segments', page);
      },
    },
    {
      method: 'get',
      path: '/segments/{id}',
      operationId: 'getSegment',
      tag: 'Segments',
      summary: 'Get a segment',
      scope: 'subscribers:read',
      spec: false,
      params: ID('segment'),
      success: { status: 200, description: 'The segment', schema: okOf(r.Segment) },
      handler: async ({ app, req }) => {
        return ok(await segments.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'put',
      path: '/segments/{id}',
      operationId: 'updateSegment',
      tag: 'Segments',
      summary: 'Update a segment',
      scope: 'subscribers:write',
      spec: false,
      params: ID('segment'),
      body: segments.SegmentUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Segment) },
      errors: [conflict('A segment with this name already exists.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await segments.update(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/segments/{id}',
      operationId: 'deleteSegment',
      tag: 'Segments',
      summary: 'Delete a segment',
      scope: 'subscribers:write',
      params: ID('segment'),
      thing: 'Segment',
      notFound: NOT_FOUND,
      remove: segments.remove,
    }),
    {
      method: 'get',
      path: '/segments/{id}/subscribers',
      operationId: 'listSegmentSubscribers',
      tag: 'Segments',
      summary: "List a segment's subscribers, computed now",
      scope: 'subscribers:read',
      spec: false,
      params: ID('segment'),
      query: PageQuery,
      success: {
        status: 200,
        description: 'The segment and one page of its subscribers',
        schema: okOf(
          pageOf('subscribers', r.SubscriberListItem).shape.data.extend({
            segment: r.Segment.pick({ id: true, name: true }),
          }),
        ),
      },
      handler: async ({ app, req }) => {
        const page = await segments.members(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return ok({ segment: page.segment, subscribers: page.items, pagination: pagination(page) });
      },
    },
  ],
};
