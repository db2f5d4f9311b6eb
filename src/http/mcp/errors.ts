// The one mapping from failures to MCP answers (spec "Errors"): JSON-RPC errors (-32700 … -32603) for
// protocol and parameter problems, and isError tool results for everything the domain refuses.
// Unexpected exceptions become -32603 with a request id; the stack goes to the log, never to the client.
import { DomainError, type ErrorKind } from '../../domain/errors.ts';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

export function rpcError(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A thrown failure that should leave the dispatcher as a JSON-RPC error (e.g. -32602 from schema checks). */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  /** the same object as the text, for clients that read the tool's outputSchema (protocol 2025-06-18 on) */
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

// every kind is a tool error (HTTP 200, isError); the compiler lists this map when a kind is added
const TOOL_ERROR_KINDS = {
  not_found: true,
  validation: true,
  conflict: true,
  limit_exceeded: true,
  state_conflict: true,
  forbidden: true,
  unprocessable: true,
} as const satisfies Record<ErrorKind, true>;

/** spec "Tool errors": the text holds {error, message?, data?}. */
export function toolError(err: DomainError): ToolResult {
  if (!TOOL_ERROR_KINDS[err.kind]) throw err;
  const body: Record<string, unknown> = { error: err.message };
  if (err.detail) body.message = err.detail;
  if (err.data) body.data = err.data;
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** The text holds {success: true, data, meta?}; `structured` adds the same object as structuredContent. */
export function toolSuccess(data: unknown, meta?: unknown, structured = true): ToolResult {
  const body = meta === undefined ? { success: true, data } : { success: true, data, meta };
  const result: ToolResult = { content: [{ type: 'text', text: JSON.stringify(body) }] };
  // the body itself, not a parse of the text: the answer is serialised once more on the way out (Dates become
  // the same ISO strings as in the text), and parsing a 100-item page back would cost as much as writing it
  if (structured) result.structuredContent = body;
  return result;
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}
