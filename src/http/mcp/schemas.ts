// The tools/list catalogue: each tool's JSON Schemas converted from its zod input and output ONCE (at the
// first call, which the endpoint makes while registering) and reused for every request; tools/list only
// filters the cached entries by the key's scopes. Converting the 88 schemas on every tools/list would cost more
// than the rest of the request.
import { z } from 'zod';
import { permits } from '../../domain/accounts/scopes.ts';
import type { Tool, ToolAnnotations } from './tool.ts';
import { TOOLS } from './tools/index.ts';

export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** the success object {success: true, data, meta?} of the text and of structuredContent */
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations & { title: string };
}

interface Catalogue {
  entries: { tool: Tool; listing: ToolListing }[];
  byName: Map<string, Tool>;
}

let cached: Catalogue | undefined;

export function catalogue(): Catalogue {
  cached ??= build(TOOLS);
  return cached;
}

export function build(tools: Tool[]): Catalogue {
  const byName = new Map<string, Tool>();
  const entries = tools.map((tool) => {
    if (byName.has(tool.name)) throw new Error(`Duplicate MCP tool name: ${tool.name}`);
    byName.set(tool.name, tool);
    const listing: ToolListing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input),
      outputSchema: outputSchemaOf(tool),
      annotations: { title: tool.title, ...tool.annotations },
    };
    return { tool, listing };
  });
  return { entries, byName };
}

/** The listings a key may see, in the catalogue's stable order. */
export function listFor(scopes: readonly string[]): ToolListing[] {
  return catalogue()
    .entries.filter((e) => permits(scopes, e.tool.scope))
    .map((e) => e.listing);
}

export function findTool(name: string): Tool | undefined {
  return catalogue().byName.get(name);
}

/** The input side of the schema (defaults shown, transforms ignored), as an object schema clients accept. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema; // the MCP default dialect is 2020-12, what zod emits; some clients reject the key
  const clean = tidy(json) as Record<string, unknown>;
  if (clean.type !== 'object') throw new Error('MCP tool inputs must be objects');
  clean.properties ??= {};
  return clean;
}

/**
 * The output as an object schema (MCP requires type "object" at the root). Converted as an input so that
 * objects stay open: zod's output mode adds additionalProperties: false to every object, and a view that
 * gains a field would then fail every client that validates structuredContent.
 */
function outputSchemaOf(tool: Tool): Record<string, unknown> {
  const json = z.toJSONSchema(tool.output, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
  delete json.$schema;
  const clean = tidy(json) as Record<string, unknown>;
  if (clean.type !== 'object') throw new Error(`MCP tool ${tool.name}: outputSchema must be an object`);
  return clean;
}

// Two portability fixes (found with the MCP Inspector's --strict schema check):
// z.number().int() adds ±Number.MAX_SAFE_INTEGER bounds, noise for an agent reading the schema; and a
// free-form record (custom_fields) comes out as additionalProperties: {}, which we spell as true.
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER))
      continue;
    const empty = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
    out[k] = k === 'additionalProperties' && empty ? true : tidy(v);
  }
  return out;
}
