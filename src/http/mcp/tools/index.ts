// All 44 tools in their stable tools/list order (spec "Scopes and the tools they unlock").
import type { Tool } from '../tool.ts';
import { subscriberTools } from './subscribers.ts';
import { segmentTools } from './segments.ts';
import { campaignTools } from './campaigns.ts';
import { groupTools } from './groups.ts';
import { webhookTools } from './webhooks.ts';
import { automationTools } from './automations.ts';
import { formTools } from './forms.ts';

export const TOOLS: Tool[] = [
  ...subscriberTools,
  ...segmentTools,
  ...campaignTools,
  ...groupTools,
  ...webhookTools,
  ...automationTools,
  ...formTools,
];
