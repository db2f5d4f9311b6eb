// Public, key-less routes: hosted forms (/f), unsubscribe (/u), tracking (/t), bounce hooks (/hooks).
import type { FastifyInstance } from 'fastify';
import { formPages } from './forms.ts';
import { unsubscribePages } from './unsubscribe.ts';
import { trackingRoutes } from './tracking.ts';
import { bounceHooks } from './bounces.ts';

export async function publicRoutes(app: FastifyInstance) {
  for (const routes of [formPages, unsubscribePages, trackingRoutes, bounceHooks]) await app.register(routes);
}
