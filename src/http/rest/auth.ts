// GET /test-auth (spec "Test authentication"): any valid key; reports who the key belongs to.
import { okWithMessage } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { type Resource } from './operation.ts';

export const authRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/test-auth',
      operationId: 'testAuth',
      tag: 'Authentication',
      summary: 'Test the API key',
      description: 'Any valid key: who it belongs to.',
      spec: true,
      success: { status: 200, description: 'The key is valid', schema: okWithMessage(r.AuthTest) },
      handler: async ({ req }) => ({
        success: true,
        message: 'Authentication successful',
        data: {
          user_id: req.key.userId,
          idp_user_id: req.key.idpUserId,
          api_key_name: req.key.name,
          authenticated_at: new Date().toISOString(),
        },
      }),
    },
  ],
};
