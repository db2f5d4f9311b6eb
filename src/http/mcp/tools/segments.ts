// MCP tools for segments. Not built yet.
import type { Tool } from '../tool.ts';

export const segmentTools: Tool[] = [];
