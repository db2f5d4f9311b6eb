// /api/v1/external/automations: our addition to the spec's REST surface (the spec shows automations only
// as tools). CRUD, enable/disable and the run activity; same rules as the MCP automation tools
// (src/domain/automations/). Scopes automations:read / automations:write.
import * as automations from '../../domain/automations/automations.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Operation, type Resource } from './operation.ts';

const NOT_FOUND = automations.NOT_FOUND;

/** POST /automations/{id}/enable and /disable: one call, the other state. */
function switchOperation(enabled: boolean): Operation {
  const verb = enabled ? 'enable' : 'disable';
  return {
    method: 'post',
    path: `/automations/{id}/${verb}`,
    operationId: `${verb}Automation`,
    tag: 'Automations',
    summary: `${enabled ? 'Enable' : 'Disable'} an automation`,
    scope: 'automations:write',
    spec: false,
    params: ID('automation'),
    success: { status: 200, description: enabled ? 'Enabled' : 'Disabled', schema: okOf(r.Automation) },
    handler: async ({ app, req }) =>
      ok(await automations.setEnabled(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), enabled)),
  };
}

export const automationRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/automations',
      operationId: 'listAutomations',
      tag: 'Automations',
      summary: 'List automations',
      scope: 'automations:read',
      spec: false,
      query: automations.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('automations', r.Automation) },
      handler: async ({ app, req }) => {
        const page = await automations.list(app.db, req.key.accountId, req.query);
        return listed('automations', page);
      },
    },
    {
      method: 'post',
      path: '/automations',
      operationId: 'createAutomation',
      tag: 'Automations',
      summary: 'Create an automation',
      scope: 'automations:write',
      spec: false,
      body: automations.NewAutomation,
      success: { status: 201, description: 'Created', schema: okOf(r.Automation) },
      handler: async ({ app, req, reply }) => {
        return reply.code(201).send(ok(await automations.create(app.db, req.key.accountId, jsonBody(req.body))));
      },
    },
    {
      method: 'get',
      path: '/automations/{id}',
      operationId: 'getAutomation',
      tag: 'Automations',
      summary: 'Get an automation with its stats',
      scope: 'automations:read',
      spec: false,
      params: ID('automation'),
      success: { status: 200, description: 'The automation', schema: okOf(r.Automation) },
      handler: async ({ app, req }) => {
        return ok(await automations.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'put',
      path: '/automations/{id}',
      operationId: 'updateAutomation',
      tag: 'Automations',
      summary: 'Update an automation',
      description: 'The trigger and steps change only while the automation is disabled (else 409).',
      scope: 'automations:write',
      spec: false,
      params: ID('automation'),
      body: automations.AutomationUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Automation) },
      errors: [conflict('Disable the automation before changing its trigger or steps.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await automations.update(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/automations/{id}',
      operationId: 'deleteAutomation',
      tag: 'Automations',
      summary: 'Delete an automation and its runs',
      scope: 'automations:write',
      params: ID('automation'),
      thing: 'Automation',
      notFound: NOT_FOUND,
      remove: automations.remove,
    }),
    switchOperation(true),
    switchOperation(false),
    {
      method: 'get',
      path: '/automations/{id}/activity',
      operationId: 'listAutomationRuns',
      tag: 'Automations',
      summary: "An automation's runs",
      scope: 'automations:read',
      spec: false,
      params: ID('automation'),
      query: automations.ActivityQuery,
      success: { status: 200, description: 'One page', schema: pageOf('runs', r.AutomationRun) },
      handler: async ({ app, req }) => {
        const page = await automations.activity(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return listed('runs', page);
      },
    },
  ],
};
