// Public, key-less routes: hosted forms (/f), unsubscribe (/u), tracking (/t), bounce hooks (/hooks),
// the images of block emails (/images).
import type { FastifyInstance } from 'fastify';
import { formPages } from './forms.ts';
import { unsubscribePages } from './unsubscribe.ts';
import { trackingRoutes } from './tracking.ts';
import { bounceHooks } from './bounces.ts';
import { imageRoutes } from './images.ts';

export async function publicRoutes(app: FastifyInstance) {
  for (const routes of [formPages, unsubscribePages, trackingRoutes, bounceHooks, imageRoutes])
    await app.register(routes);
}
