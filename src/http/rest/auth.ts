// GET /test-auth (spec "Test authentication"): any valid key; reports who the key belongs to.
import type { FastifyInstance } from 'fastify';

export async function authRoutes(app: FastifyInstance) {
  app.get('/test-auth', async (req) => ({
    success: true,
    message: 'Authentication successful',
    data: {
      user_id: req.key.userId,
      idp_user_id: req.key.idpUserId,
      api_key_name: req.key.name,
      authenticated_at: new Date().toISOString(),
    },
  }));
}
