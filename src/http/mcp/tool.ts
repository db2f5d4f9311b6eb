// What a tool is: a name, the scope that unlocks it, a zod input schema, the zod shape of its answer, and a
// call into src/domain. The dispatcher (endpoint.ts) parses arguments with `input` (-32602 on failure), checks
// `scope` (Forbidden tool error), runs `run`, and wraps its output as {success:true, data, meta?}, the object
// `output` describes (outputs.ts; tools/list shows it as outputSchema).
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Scope } from '../../domain/accounts/scopes.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { KeyContext } from '../../domain/accounts/apiKeys.ts';
import type { Queue } from '../../jobs/queue.ts';

export interface ToolContext {
  db: Db;
  config: Config;
  key: KeyContext;
  queue: Queue;
  log: FastifyBaseLogger;
}

export interface ListMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
}

export interface ToolOutput {
  data: unknown;
  meta?: ListMeta;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint?: boolean;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  scope: Scope;
  description: string;
  annotations: ToolAnnotations;
  input: S;
  /** the whole success object {success: true, data, meta?}, built with outputs.single / outputs.page */
  output: z.ZodType;
  run(ctx: ToolContext, args: z.output<S>): Promise<ToolOutput>;
}

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}
