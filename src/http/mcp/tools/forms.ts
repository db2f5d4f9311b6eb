// MCP tools for forms. Not built yet.
import type { Tool } from '../tool.ts';

export const formTools: Tool[] = [];
