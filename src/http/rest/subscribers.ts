// /api/v1/external/subscribers: the spec's subscriber endpoints. Call the domain, pick the spec's fields.
import { Readable } from 'node:stream';
import * as apiSignups from '../../domain/forms/apiSignups.ts';
import * as bulk from '../../domain/subscribers/bulk.ts';
import { exportCsv } from '../../domain/subscribers/export.ts';
import * as subscribers from '../../domain/subscribers/subscribers.ts';
import { Deleted, okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { pick } from '../pick.ts';
import { SUBSCRIBER_VIEW } from '../subscriberViews.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, ID, planLimit, type Resource } from './operation.ts';

const { create: CREATE_FIELDS, get: GET_FIELDS, update: UPDATE_FIELDS } = SUBSCRIBER_VIEW;

const bodies = new WeakMap<object, string>();

export const subscriberRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/subscribers',
      operationId: 'listSubscribers',
      tag: 'Subscribers',
      summary: 'List subscribers',
      scope: 'subscribers:read',
      spec: true,
      query: subscribers.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('subscribers', r.SubscriberListItem) },
      handler: async ({ app, req }) => {
        const page = await subscribers.list(app.db, req.key.accountId, req.query);
        return listed('subscribers', page);
      },
    },
    {
      method: 'post',
      path: '/subscribers',
      operationId: 'createSubscriber',
      tag: 'Subscribers',
      summary: 'Create a subscriber',
      description:
        'With `double_opt_in: true` nothing is created yet: a pending sign-up starts and the confirmation ' +
        'mail goes out, and the answer is 202 with `data: {signup_id, status: "pending", confirmation_sent}`. ' +
        'Opening the link creates or updates the subscriber. `form_id` picks the form whose confirmation mail ' +
        'and groups apply; without it, the account defaults. See GET /signups.',
      scope: 'subscribers:write',
      spec: true,
      body: apiSignups.CreateOrSignup,
      success: { status: 201, description: 'Created', schema: okOf(r.SubscriberCreated) },
      errors: [planLimit, conflict('A subscriber with this email already exists.')],
      handler: async ({ app, req, reply }) => {
        const mail = { transport: app.transport, config: app.config };
        const result = await apiSignups.createOrSignup(app.db, mail, req.key.accountId, jsonBody(req.body), 'api');
        if ('created' in result) return reply.code(201).send(ok(pick(result.created, CREATE_FIELDS)));
        return reply.code(202).send(ok(result));
      },
    },
    {
      method: 'get',
      path: '/subscribers/stats',
      operationId: 'subscriberStats',
      tag: 'Subscribers',
      summary: 'Subscriber statistics',
      scope: 'subscribers:read',
      spec: true,
      success: { status: 200, description: 'The counts', schema: okOf(r.SubscriberStats) },
      handler: async ({ app, req }) => {
        return ok(await subscribers.stats(app.db, req.key.accountId));
      },
    },
    {
      method: 'post',
      path: '/subscribers/bulk',
      operationId: 'bulkSubscribers',
      tag: 'Subscribers',
      summary: 'One action over many subscribers',
      description: 'Add to or remove from a group, unsubscribe or delete: by ids or by the list filter.',
      scope: 'subscribers:write',
      spec: false,
      body: bulk.BulkAction,
      success: { status: 200, description: 'Done', schema: okOf(r.BulkResult) },
      handler: async ({ app, req }) => {
        return ok(await bulk.apply(app.db, req.key.accountId, jsonBody(req.body)));
      },
    },
    {
      method: 'get',
      path: '/subscribers/export',
      operationId: 'exportSubscribers',
      tag: 'Subscribers',
      summary: 'Export subscribers as CSV',
      scope: 'subscribers:read',
      spec: false,
      query: bulk.Filter,
      success: { status: 200, description: 'The CSV, streamed', csv: true },
      handler: async ({ app, req, reply }) => {
        const csv = await exportCsv(app.db, req.key.accountId, req.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="subscribers.csv"')
          .send(Readable.from(csv));
      },
    },
    {
      method: 'get',
      path: '/subscribers/{id}',
      operationId: 'getSubscriber',
      tag: 'Subscribers',
      summary: 'Get a subscriber, with groups and notes',
      scope: 'subscribers:read',
      spec: true,
      params: ID('subscriber'),
      success: { status: 200, description: 'The subscriber', schema: okOf(r.SubscriberFull) },
      handler: async ({ app, req, reply }) => {
        const id = pathId(req.params, 'Subscriber not found');
        const sub = await subscribers.getFull(app.db, req.key.accountId, { id });
        // a subscriber served from the read cache is the same frozen object on every hit: its body is
        // serialised once (JSON.stringify was 8 % of the server's CPU on this route)
        let body = bodies.get(sub);
        if (body === undefined) bodies.set(sub, (body = JSON.stringify(ok(pick(sub, GET_FIELDS)))));
        return reply.type('application/json; charset=utf-8').send(body);
      },
    },
    {
      method: 'put',
      path: '/subscribers/{id}',
      operationId: 'updateSubscriber',
      tag: 'Subscribers',
      summary: 'Update a subscriber',
      description: 'Only the fields sent change; group_ids replaces the memberships; custom_fields are merged.',
      scope: 'subscribers:write',
      spec: true,
      params: ID('subscriber'),
      body: subscribers.SubscriberUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.SubscriberUpdated) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, 'Subscriber not found');
        return ok(pick(await subscribers.update(app.db, req.key.accountId, id, jsonBody(req.body)), UPDATE_FIELDS));
      },
    },
    {
      method: 'delete',
      path: '/subscribers/{id}',
      operationId: 'deleteSubscriber',
      tag: 'Subscribers',
      summary: 'Delete a subscriber, permanently',
      scope: 'subscribers:write',
      spec: true,
      params: ID('subscriber'),
      success: { status: 200, description: 'Deleted', schema: Deleted },
      handler: async ({ app, req }) => {
        await subscribers.remove(app.db, req.key.accountId, pathId(req.params, 'Subscriber not found'));
        return { success: true, message: 'Subscriber deleted successfully' };
      },
    },
  ],
};
