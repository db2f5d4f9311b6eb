// MCP tools for campaigns. Not built yet.
import type { Tool } from '../tool.ts';

export const campaignTools: Tool[] = [];
