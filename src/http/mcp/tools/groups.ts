// MCP tools for groups. Not built yet.
import type { Tool } from '../tool.ts';

export const groupTools: Tool[] = [];
