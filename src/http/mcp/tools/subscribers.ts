// MCP tools for subscribers. Not built yet.
import type { Tool } from '../tool.ts';

export const subscriberTools: Tool[] = [];
