// POST /mcp: our own JSON-RPC 2.0 dispatcher for the tool endpoint (stateless Streamable HTTP, JSON answers).
// Order of checks: method (405) → Origin (403) → auth (401) → rate limit (429) → JSON parse (-32700)
// → envelope (-32600) → method (-32601) → tool name / arguments / schema (-32602) → scope (Forbidden) → domain.
// Why not the SDK's server transport: it breaks six of the spec's seven error rules.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { KeyRateLimiter } from '../../auth/rateLimit.ts';
import { permits } from '../../domain/accounts/scopes.ts';
import { Forbidden, type Validation } from '../../domain/errors.ts';
import { acceptText, notStorableAt } from '../../domain/storable.ts';
import { fromStorageError } from '../../domain/storageErrors.ts';
import { validationOf } from '../../domain/validation.ts';
import type { KeyContext } from '../../domain/accounts/apiKeys.ts';
import { keyGuard } from '../keyGuard.ts';
import * as rpc from './errors.ts';
import { catalogue, findTool, listFor } from './schemas.ts';
import type { ToolContext } from './tool.ts';

// newest first; the newest is the SDK's LATEST_PROTOCOL_VERSION (test/http/mcp/endpoint.sdkClient.test.ts keeps them equal)
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

// Revisions before structuredContent (added in 2025-06-18). The server is stateless, so what initialize
// negotiated is known per request only from the MCP-Protocol-Version header clients send after it; a
// request without the header (or with a revision we do not know) gets structuredContent, which a client
// of an older revision ignores.
const BEFORE_STRUCTURED_CONTENT: ReadonlySet<string> = new Set(['2025-03-26', '2024-11-05', '2024-10-07']);

/** Whether a tools/call answer carries structuredContent beside its text. */
export function wantsStructuredContent(protocolHeader: string | string[] | undefined): boolean {
  const version = Array.isArray(protocolHeader) ? protocolHeader[0] : protocolHeader;
  return version === undefined || !BEFORE_STRUCTURED_CONTENT.has(version.trim());
}

const INSTRUCTIONS =
  'Mailgrove is an email-marketing service. Tools act on the account that owns the API key: subscribers, groups, ' +
  'segments, campaigns, webhooks, automations and forms. Ids are passed as <resource>_id (UUIDs); list tools take ' +
  'page and per_page (default 25, max 100) and return meta {current_page, last_page, per_page, total}. Every result ' +
  'is a JSON text {success, data, meta?}, also given as structuredContent (each tool has an outputSchema); a ' +
  'refused call is a tool error {error, message?}.';

type Message = Record<string, unknown>;
type Answer = rpc.JsonRpcError | { jsonrpc: '2.0'; id: rpc.JsonRpcId; result: unknown } | undefined; // undefined: nothing to answer (notification) → 202

export const MCP_BODY_LIMIT = 8 * 1024 * 1024;

export async function mcpEndpoint(app: FastifyInstance, opts: { limiter: KeyRateLimiter }) {
  catalogue(); // JSON Schemas are computed once, at start, not per tools/list
  const allowedOrigins = new Set(
    app.config.MCP_ALLOWED_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );

  // the body reaches the handler as raw text whatever its content type, so a malformed body is our
  // -32700 (after auth) and not Fastify's 400. The body limit is MCP_BODY_LIMIT, above REST's 1 MB:
  // import_subscribers_to_group takes up to 50,000 rows in one call (~4 MB of JSON)
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.statusCode === 413)
      return reply.code(413).send({
        error: 'Payload Too Large',
        message: `Request body is larger than ${MCP_BODY_LIMIT / 1024 / 1024} MB`,
      });
    if (err.statusCode && err.statusCode < 500) return reply.code(err.statusCode).send({ error: err.message });
    req.log.error({ err, reqId: req.id }, 'MCP request failed');
    return reply.code(500).send({ error: 'Internal server error', request_id: req.id });
  });

  const admitKey = keyGuard(app.db, opts.limiter, {
    unauthorized: (reply) => reply.code(401).header('WWW-Authenticate', 'Bearer').send({ error: 'Unauthorized' }),
    rateLimited: (limit) => ({
      message: `Rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfter} seconds`,
      retry_after: limit.retryAfter,
    }),
  });

  // spec: any method other than POST is answered 405 (HEAD comes with GET)
  app.route({
    method: app.supportedMethods.filter((m) => m !== 'POST' && m !== 'HEAD'),
    url: '/',
    handler: async (_req, reply) =>
      reply
        .code(405)
        .header('Allow', 'POST')
        .send({ error: 'Method Not Allowed', message: 'Use POST for the MCP endpoint' }),
  });

  app.post('/', { bodyLimit: MCP_BODY_LIMIT }, async (req, reply) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has('*') && !allowedOrigins.has(origin)) {
      return reply.code(403).send({ error: 'Forbidden', message: 'Origin not allowed' });
    }
    const key = await admitKey(req, reply);
    if (!key) return reply;
    const answer = await dispatch(app, req, key, typeof req.body === 'string' ? req.body : '');
    if (answer === undefined) return reply.code(202).send();
    return reply.type('application/json').send(answer);
  });
}

async function dispatch(app: FastifyInstance, req: FastifyRequest, key: KeyContext, raw: string): Promise<Answer> {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return rpc.rpcError(null, rpc.PARSE_ERROR, 'Parse error: the request body is not valid JSON');
  }
  if (Array.isArray(msg))
    return rpc.rpcError(
      null,
      rpc.INVALID_REQUEST,
      'Invalid Request: batch requests are not supported; send one JSON-RPC object',
    );
  if (msg === null || typeof msg !== 'object')
    return rpc.rpcError(null, rpc.INVALID_REQUEST, 'Invalid Request: the body must be a JSON-RPC 2.0 request object');
  const m = msg as Message;
  const id = validId(m.id);
  if (m.jsonrpc !== '2.0') {
    const what = m.jsonrpc === undefined ? 'missing jsonrpc version' : 'invalid jsonrpc version';
    return rpc.rpcError(id ?? null, rpc.INVALID_REQUEST, `Invalid Request: ${what}; "jsonrpc" must be "2.0"`);
  }
  if (id === undefined)
    return rpc.rpcError(null, rpc.INVALID_REQUEST, 'Invalid Request: id must be a string, a number or null');
  // a client's response to a server request: accepted and ignored (we never send requests)
  if (m.method === undefined && ('result' in m || 'error' in m)) return undefined;
  if (typeof m.method !== 'string')
    return rpc.rpcError(id, rpc.INVALID_REQUEST, 'Invalid Request: method must be a string');
  if (!('id' in m) || m.method.startsWith('notifications/')) return undefined;

  try {
    const result = await call(app, req, key, m.method, m.params);
    return { jsonrpc: '2.0', id, result };
  } catch (err) {
    if (err instanceof rpc.RpcFailure) return rpc.rpcError(id, err.code, err.message, err.data);
    req.log.error({ err, reqId: req.id, method: m.method }, 'MCP internal error');
    return rpc.rpcError(id, rpc.INTERNAL_ERROR, 'Internal error', { request_id: req.id });
  }
}

/** undefined when the id is present but not a string, number or null; a missing id reads as null. */
function validId(id: unknown): rpc.JsonRpcId | undefined {
  if (id === undefined || id === null) return null;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  return undefined;
}

async function call(
  app: FastifyInstance,
  req: FastifyRequest,
  key: KeyContext,
  method: string,
  params: unknown,
): Promise<unknown> {
  switch (method) {
    case 'initialize':
      return initialize(params, app.config.version);
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: listFor(key.scopes) };
    case 'tools/call':
      return callTool(
        { db: app.db, config: app.config, queue: app.queue, key, log: req.log },
        params,
        wantsStructuredContent(req.headers['mcp-protocol-version']),
      );
    default:
      throw new rpc.RpcFailure(rpc.METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}

function initialize(params: unknown, version: string) {
  const requested = isObject(params) ? params.protocolVersion : undefined;
  const protocolVersion = PROTOCOL_VERSIONS.find((v) => v === requested) ?? LATEST_PROTOCOL_VERSION;
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'mailgrove', title: 'Mailgrove', version },
    instructions: INSTRUCTIONS,
  };
}

async function callTool(ctx: ToolContext, params: unknown, structured: boolean): Promise<rpc.ToolResult> {
  if (!isObject(params))
    throw new rpc.RpcFailure(rpc.INVALID_PARAMS, 'Invalid params: params must be an object with the tool name');
  if (typeof params.name !== 'string')
    throw new rpc.RpcFailure(rpc.INVALID_PARAMS, 'Invalid params: name must be a string');
  const tool = findTool(params.name);
  if (!tool) throw new rpc.RpcFailure(rpc.INVALID_PARAMS, `Unknown tool: ${params.name}`);
  const args = params.arguments === undefined ? {} : params.arguments;
  if (!isObject(args)) throw new rpc.RpcFailure(rpc.INVALID_PARAMS, 'Invalid params: arguments must be an object');
  // schemas recurse on their input: a hostile 30,000-level value (under 1 MB) would overflow the stack (-32603)
  if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH))
    throw new rpc.RpcFailure(
      rpc.INVALID_PARAMS,
      `Invalid params: arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`,
    );
  // the text rule of every face (NUL, control characters, unpaired surrogates; NFC), naming the field
  const text = acceptText(args);
  if (text.path !== undefined) throw invalidParams(notStorableAt(text.path));
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) throw invalidParams(validationOf(parsed.error));
  if (!permits(ctx.key.scopes, tool.scope)) return rpc.toolError(new Forbidden(tool.scope));
  try {
    const out = await tool.run(ctx, parsed.data);
    return rpc.toolSuccess(out.data, out.meta, structured);
  } catch (err) {
    if (rpc.isDomainError(err)) return rpc.toolError(err);
    const refused = fromStorageError(err);
    if (refused) return rpc.toolError(refused);
    throw err;
  }
}

/** -32602 with the first problem as its message and every field's messages as its data. */
function invalidParams(v: Validation): rpc.RpcFailure {
  return new rpc.RpcFailure(rpc.INVALID_PARAMS, v.message, { fields: v.fields });
}

// the deepest legitimate input (automation condition steps with a segment filter inside) is ~25 levels
const MAX_ARGUMENT_DEPTH = 64;

/** Iterative, so that measuring the depth cannot overflow the stack itself. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function isObject(v: unknown): v is Message {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
