// MCP tools for automations. Not built yet.
import type { Tool } from '../tool.ts';

export const automationTools: Tool[] = [];
