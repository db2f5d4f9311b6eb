// /api/v1/external/warmup: our addition to the spec's REST surface. Warm-up plans of the account's sending
// domains (src/domain/campaigns/warmup.ts); they govern campaign sending, hence the campaigns scopes.
import * as warmup from '../../domain/campaigns/warmup.ts';
import { pageOfWhole, WholeListQuery } from '../../domain/paging.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

export const warmupRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/warmup',
      operationId: 'listWarmupPlans',
      tag: 'Warm-up',
      summary: "Warm-up plans of the account's sending domains",
      scope: 'campaigns:read',
      spec: false,
      query: WholeListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('plans', r.WarmupPlan) },
      handler: async ({ app, req }) => {
        const page = pageOfWhole(await warmup.list(app.db, app.config, req.key.accountId), req.query);
        return listed('plans', page);
      },
    },
    {
      method: 'post',
      path: '/warmup',
      operationId: 'createWarmupPlan',
      tag: 'Warm-up',
      summary: 'Start warming up a sending domain',
      scope: 'campaigns:write',
      spec: false,
      body: warmup.NewPlan,
      success: { status: 201, description: 'Created', schema: okOf(r.WarmupPlan) },
      errors: [conflict('The domain already has a plan.')],
      handler: async ({ app, req, reply }) => {
        const plan = await warmup.create(app.db, app.config, req.key.accountId, jsonBody(req.body));
        return reply.code(201).send(ok(plan));
      },
    },
    {
      method: 'get',
      path: '/warmup/{id}',
      operationId: 'getWarmupPlan',
      tag: 'Warm-up',
      summary: 'Get a warm-up plan',
      scope: 'campaigns:read',
      spec: false,
      params: ID('plan'),
      success: { status: 200, description: 'The plan', schema: okOf(r.WarmupPlan) },
      handler: async ({ app, req }) => {
        return ok(await warmup.get(app.db, app.config, req.key.accountId, pathId(req.params, warmup.NOT_FOUND)));
      },
    },
    deleteOperation({
      path: '/warmup/{id}',
      operationId: 'deleteWarmupPlan',
      tag: 'Warm-up',
      summary: 'End a warm-up plan',
      scope: 'campaigns:write',
      params: ID('plan'),
      thing: 'Warm-up plan',
      notFound: warmup.NOT_FOUND,
      remove: warmup.remove,
    }),
  ],
};
