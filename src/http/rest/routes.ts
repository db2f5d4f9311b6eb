// Every REST resource, in one list: each file declares the operations of one resource. The REST plugin
// registers them (restRoutes) and the OpenAPI document lists them (REST_OPERATIONS), in this order.
import { accountRoutes } from './account.ts';
import { authRoutes } from './auth.ts';
import { automationRoutes } from './automations.ts';
import { campaignRoutes } from './campaigns.ts';
import { fieldRoutes } from './fields.ts';
import { formRoutes } from './forms.ts';
import { groupRoutes } from './groups.ts';
import { imageRoutes } from './images.ts';
import { importRoutes } from './imports.ts';
import { restResource, type Resource } from './operation.ts';
import { relayRoutes } from './relays.ts';
import { segmentRoutes } from './segments.ts';
import { signupRoutes } from './signups.ts';
import { sendingDomainRoutes } from './sendingDomains.ts';
import { subscriberRoutes } from './subscribers.ts';
import { suppressionRoutes } from './suppressions.ts';
import { templateRoutes } from './templates.ts';
import { warmupRoutes } from './warmup.ts';
import { webhookRoutes } from './webhooks.ts';

const RESOURCES: Resource[] = [
  authRoutes,
  accountRoutes,
  subscriberRoutes,
  importRoutes,
  fieldRoutes,
  groupRoutes,
  segmentRoutes,
  formRoutes,
  signupRoutes,
  campaignRoutes,
  imageRoutes,
  templateRoutes,
  warmupRoutes,
  sendingDomainRoutes,
  relayRoutes,
  suppressionRoutes,
  webhookRoutes,
  automationRoutes,
];

/** One Fastify plugin per resource, for the REST face (./index.ts) under REST_PREFIX. */
export const restRoutes = RESOURCES.map(restResource);

/** Every REST operation, paths relative to REST_PREFIX. */
export const REST_OPERATIONS = RESOURCES.flatMap((r) => r.operations);
