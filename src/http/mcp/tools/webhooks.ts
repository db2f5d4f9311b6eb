// MCP tools for webhooks. Not built yet.
import type { Tool } from '../tool.ts';

export const webhookTools: Tool[] = [];
