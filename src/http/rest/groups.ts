// /api/v1/external/groups: our addition to the spec's REST surface (the spec shows groups only as tools).
// Same rules as the MCP group tools, because both call the domain's groups module; scopes groups:read / groups:write.
import * as groups from '../../domain/subscribers/groups.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

const NOT_FOUND = 'Group not found';

export const groupRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/groups',
      operationId: 'listGroups',
      tag: 'Groups',
      summary: 'List groups',
      scope: 'groups:read',
      spec: false,
      query: groups.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('groups', r.Group) },
      handler: async ({ app, req }) => {
        const page = await groups.list(app.db, req.key.accountId, req.query);
        return listed('groups', page);
      },
    },
    {
      method: 'post',
      path: '/groups',
      operationId: 'createGroup',
      tag: 'Groups',
      summary: 'Create a group',
      scope: 'groups:write',
      spec: false,
      body: groups.NewGroup,
      success: { status: 201, description: 'Created', schema: okOf(r.Group) },
      errors: [conflict('A group with this name already exists.')],
      handler: async ({ app, req, reply }) => {
        return reply.code(201).send(ok(await groups.create(app.db, req.key.accountId, jsonBody(req.body))));
      },
    },
    {
      method: 'get',
      path: '/groups/{id}',
      operationId: 'getGroup',
      tag: 'Groups',
      summary: 'Get a group',
      scope: 'groups:read',
      spec: false,
      params: ID('group'),
      success: { status: 200, description: 'The group', schema: okOf(r.Group) },
      handler: async ({ app, req }) => {
        return ok(await groups.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'put',
      path: '/groups/{id}',
      operationId: 'updateGroup',
      tag: 'Groups',
      summary: 'Rename a group',
      scope: 'groups:write',
      spec: false,
      params: ID('group'),
      body: groups.GroupUpdate,
      success: { status: 200, description: 'Renamed', schema: okOf(r.Group) },
      errors: [conflict('A group with this name already exists.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await groups.update(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/groups/{id}',
      operationId: 'deleteGroup',
      tag: 'Groups',
      summary: 'Delete a group (its subscribers stay)',
      scope: 'groups:write',
      params: ID('group'),
      thing: 'Group',
      notFound: NOT_FOUND,
      remove: groups.remove,
    }),
    {
      method: 'get',
      path: '/groups/{id}/subscribers',
      operationId: 'listGroupSubscribers',
      tag: 'Groups',
      summary: "List a group's subscribers",
      scope: 'groups:read',
      spec: false,
      params: ID('group'),
      query: groups.MembersQuery,
      success: { status: 200, description: 'One page', schema: pageOf('subscribers', r.SubscriberListItem) },
      handler: async ({ app, req }) => {
        const page = await groups.members(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return listed('subscribers', page);
      },
    },
    {
      method: 'post',
      path: '/groups/{id}/subscribers/{subscriberId}',
      operationId: 'assignSubscriberToGroup',
      tag: 'Groups',
      summary: 'Add a subscriber to a group',
      scope: 'groups:write',
      spec: false,
      params: { ...ID('group'), subscriberId: "The subscriber's id (UUID)." },
      success: { status: 200, description: 'Added (added: false when already a member)', schema: okOf(r.Assigned) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(
          await groups.assign(
            app.db,
            req.key.accountId,
            id,
            pathId(req.params, 'Subscriber not found', 'subscriberId'),
          ),
        );
      },
    },
    {
      method: 'delete',
      path: '/groups/{id}/subscribers/{subscriberId}',
      operationId: 'unassignSubscriberFromGroup',
      tag: 'Groups',
      summary: 'Remove a subscriber from a group',
      scope: 'groups:write',
      spec: false,
      params: { ...ID('group'), subscriberId: "The subscriber's id (UUID)." },
      success: { status: 200, description: 'Removed (removed: false when not a member)', schema: okOf(r.Unassigned) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(
          await groups.unassign(
            app.db,
            req.key.accountId,
            id,
            pathId(req.params, 'Subscriber not found', 'subscriberId'),
          ),
        );
      },
    },
  ],
};
