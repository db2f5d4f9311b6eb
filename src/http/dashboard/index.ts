// The account dashboard: the React app at `/` and its JSON API at /app/api, used only by it.
// The API signs people in with a session cookie (not API keys), guards every route with guard.ts and
// calls the same domain functions as REST and MCP.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { createOidc } from '../../auth/oidc.ts';
import { restError } from '../rest/errors.ts';
import { installGuard } from './guard.ts';
import { audienceRoutes } from './api/audience.ts';
import { automationRoutes } from './api/automations.ts';
import { bounceRoutes } from './api/bounces.ts';
import { campaignRoutes } from './api/campaigns.ts';
import { contentRoutes } from './api/content.ts';
import { fieldRoutes } from './api/fields.ts';
import { groupRoutes } from './api/groups.ts';
import { suppressionRoutes } from './api/suppressions.ts';
import { importRoutes } from './api/imports.ts';
import { keyRoutes } from './api/keys.ts';
import { outboxRoutes } from './api/outbox.ts';
import { relayRoutes } from './api/relays.ts';
import { sendingDomainRoutes } from './api/sendingDomains.ts';
import { sessionRoutes } from './api/session.ts';
import { securityRoutes } from './api/security.ts';
import { invitationRoutes } from './api/invitations.ts';
import { settingsRoutes } from './api/settings.ts';
import { subscriberRoutes } from './api/subscribers.ts';
import { webhookRoutes } from './api/webhooks.ts';
import { warmupRoutes } from './api/warmup.ts';
import { oidcRoutes } from './oidcRoutes.ts';
import { spa } from './spa.ts';

const API_ROUTES = [
  sessionRoutes,
  securityRoutes,
  invitationRoutes,
  keyRoutes,
  subscriberRoutes,
  importRoutes,
  audienceRoutes,
  outboxRoutes,
  settingsRoutes,
  campaignRoutes,
  contentRoutes,
  groupRoutes,
  suppressionRoutes,
  webhookRoutes,
  fieldRoutes,
  automationRoutes,
  warmupRoutes,
  bounceRoutes,
  sendingDomainRoutes,
  relayRoutes,
];

export async function dashboard(app: FastifyInstance) {
  // signs the short-lived OIDC state cookie; session cookies are random tokens checked against the database
  await app.register(cookie, { secret: app.config.secret });
  await app.register(spa);
  const oidc = createOidc(app.config);
  if (oidc) await app.register(oidcRoutes, { oidc });
  await app.register(
    async (api) => {
      api.setErrorHandler(restError);
      installGuard(api);
      for (const routes of API_ROUTES) await api.register(routes);
      // an unknown /app/api path is still behind the guard: 401 without a session, 404 with one
      api.all('/*', async (_req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));
    },
    { prefix: '/app/api' },
  );
}
