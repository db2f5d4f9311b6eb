// /api/v1/external/signups: the double opt-in sign-ups waiting for their confirmation link, mailed again
// or confirmed by hand. Confirming creates a subscriber, so the scopes are the subscribers' ones.
import * as pendingSignups from '../../domain/forms/pendingSignups.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { ID, type Resource } from './operation.ts';

const NOT_FOUND = 'Sign-up not found';

export const signupRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/signups',
      operationId: 'listSignups',
      tag: 'Forms',
      summary: 'List double opt-in sign-ups (pending by default)',
      scope: 'subscribers:read',
      spec: false,
      query: pendingSignups.SignupQuery,
      success: { status: 200, description: 'One page, newest first', schema: pageOf('signups', r.Signup) },
      handler: async ({ app, req }) =>
        listed('signups', await pendingSignups.list(app.db, req.key.accountId, req.query)),
    },
    {
      method: 'post',
      path: '/signups/{id}/resend',
      operationId: 'resendSignup',
      tag: 'Forms',
      summary: 'Mail the confirmation again, with a fresh link',
      scope: 'subscribers:write',
      spec: false,
      params: ID('sign-up'),
      success: { status: 200, description: 'The sign-up, pending again', schema: okOf(r.Signup) },
      handler: async ({ app, req }) =>
        ok(
          await pendingSignups.resend(
            app.db,
            { transport: app.transport, config: app.config },
            req.key.accountId,
            pathId(req.params, NOT_FOUND),
          ),
        ),
    },
    {
      method: 'post',
      path: '/signups/{id}/confirm',
      operationId: 'confirmSignup',
      tag: 'Forms',
      summary: 'Confirm a sign-up by hand, with the reason',
      scope: 'subscribers:write',
      spec: false,
      params: ID('sign-up'),
      body: pendingSignups.ManualConfirmation,
      success: { status: 200, description: 'The sign-up, confirmed', schema: okOf(r.Signup) },
      handler: async ({ app, req }) =>
        ok(
          await pendingSignups.confirmByHand(
            app.db,
            req.key.accountId,
            pathId(req.params, NOT_FOUND),
            `API key “${req.key.name}”`,
            jsonBody(req.body),
          ),
        ),
    },
  ],
};
