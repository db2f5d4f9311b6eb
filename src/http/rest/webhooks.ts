// /api/v1/external/webhooks: our addition to the spec's REST surface (the spec shows webhooks only as tools).
// CRUD, the delivery log, a test event and the replay of a delivery; same rules as the MCP webhook tools (src/domain/webhooks/).
// Scopes webhooks:read / webhooks:write.
import * as webhooks from '../../domain/webhooks/webhooks.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { deleteOperation, ID, type Resource } from './operation.ts';

const NOT_FOUND = webhooks.NOT_FOUND;

export const webhookRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      tag: 'Webhooks',
      summary: 'List webhooks',
      scope: 'webhooks:read',
      spec: false,
      query: webhooks.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('webhooks', r.Webhook) },
      handler: async ({ app, req }) => {
        const page = await webhooks.list(app.db, req.key.accountId, req.query);
        return listed('webhooks', page);
      },
    },
    {
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      tag: 'Webhooks',
      summary: 'Create a webhook',
      description: 'The answer holds the signing secret.',
      scope: 'webhooks:write',
      spec: false,
      body: webhooks.NewWebhook,
      success: { status: 201, description: 'Created', schema: okOf(r.WebhookWithSecret) },
      handler: async ({ app, req, reply }) => {
        const created = await webhooks.create(app.db, req.key.accountId, jsonBody(req.body), app.config);
        return reply.code(201).send(ok(created));
      },
    },
    {
      method: 'get',
      path: '/webhooks/{id}',
      operationId: 'getWebhook',
      tag: 'Webhooks',
      summary: 'Get a webhook with its secret and recent deliveries',
      scope: 'webhooks:read',
      spec: false,
      params: ID('webhook'),
      success: { status: 200, description: 'The webhook', schema: okOf(r.WebhookDetail) },
      handler: async ({ app, req }) => {
        return ok(await webhooks.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'put',
      path: '/webhooks/{id}',
      operationId: 'updateWebhook',
      tag: 'Webhooks',
      summary: 'Update a webhook',
      scope: 'webhooks:write',
      spec: false,
      params: ID('webhook'),
      body: webhooks.WebhookUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Webhook) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await webhooks.update(app.db, req.key.accountId, id, jsonBody(req.body), app.config));
      },
    },
    deleteOperation({
      path: '/webhooks/{id}',
      operationId: 'deleteWebhook',
      tag: 'Webhooks',
      summary: 'Delete a webhook',
      scope: 'webhooks:write',
      params: ID('webhook'),
      thing: 'Webhook',
      notFound: NOT_FOUND,
      remove: webhooks.remove,
    }),
    {
      method: 'get',
      path: '/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      tag: 'Webhooks',
      summary: "A webhook's delivery log",
      scope: 'webhooks:read',
      spec: false,
      params: ID('webhook'),
      query: webhooks.DeliveriesQuery,
      success: { status: 200, description: 'One page', schema: pageOf('deliveries', r.Delivery) },
      handler: async ({ app, req }) => {
        const page = await webhooks.deliveries(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return listed('deliveries', page);
      },
    },
    {
      method: 'post',
      path: '/webhooks/{id}/test',
      operationId: 'testWebhook',
      tag: 'Webhooks',
      summary: 'Send a test event now',
      scope: 'webhooks:write',
      spec: false,
      params: ID('webhook'),
      success: { status: 200, description: 'What the endpoint answered', schema: okOf(r.WebhookTest) },
      handler: async ({ app, req }) => {
        return ok(await webhooks.test(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), app.config));
      },
    },
    {
      method: 'post',
      path: '/webhooks/{id}/deliveries/{deliveryId}/replay',
      operationId: 'replayWebhookDelivery',
      tag: 'Webhooks',
      summary: 'Deliver a logged delivery again',
      scope: 'webhooks:write',
      spec: false,
      params: { ...ID('webhook'), deliveryId: "The delivery's id (UUID)." },
      success: { status: 202, description: 'A new delivery, queued', schema: okOf(r.Delivery) },
      handler: async ({ app, req, reply }) => {
        const id = pathId(req.params, NOT_FOUND);
        const deliveryId = pathId(req.params, webhooks.DELIVERY_NOT_FOUND, 'deliveryId');
        return reply.code(202).send(ok(await webhooks.replay(app.db, req.key.accountId, id, deliveryId)));
      },
    },
  ],
};
