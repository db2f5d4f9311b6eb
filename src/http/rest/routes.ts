// Every REST route file, in one list: each file registers the routes of one resource.
import type { FastifyInstance } from 'fastify';
import { authRoutes } from './auth.ts';
import { subscriberRoutes } from './subscribers.ts';
import { fieldRoutes } from './fields.ts';
import { importRoutes } from './imports.ts';
import { groupRoutes } from './groups.ts';
import { segmentRoutes } from './segments.ts';
import { formRoutes } from './forms.ts';
import { campaignRoutes } from './campaigns.ts';
import { suppressionRoutes } from './suppressions.ts';
import { webhookRoutes } from './webhooks.ts';
import { automationRoutes } from './automations.ts';
import { warmupRoutes } from './warmup.ts';

export const restRoutes: ((app: FastifyInstance) => Promise<void>)[] = [
  authRoutes,
  subscriberRoutes,
  fieldRoutes,
  importRoutes,
  groupRoutes,
  segmentRoutes,
  formRoutes,
  campaignRoutes,
  suppressionRoutes,
  webhookRoutes,
  automationRoutes,
  warmupRoutes,
];
