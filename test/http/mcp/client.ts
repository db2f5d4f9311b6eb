// A small JSON-RPC client for the MCP endpoint tests: raw posts (to test the envelope rules) and tool calls
// that unwrap the {success, data, meta} / {error, message} text of the result.
import { client, type ApiResponse, type TestServer } from '../../support/server.ts';

export interface ToolCall {
  /** the whole HTTP response */
  res: ApiResponse;
  /** JSON-RPC error, when the call failed before the tool ran */
  error?: { code: number; message: string; data?: any };
  isError: boolean;
  /** the parsed text of result.content[0] */
  body: any;
}

export function mcpClient(url: string, key?: string) {
  const http = client(url, key);
  let n = 0;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    http.post('/mcp', body, { accept: 'application/json, text/event-stream', ...headers });
  const rpc = (method: string, params?: unknown, headers?: Record<string, string>) =>
    post({ jsonrpc: '2.0', id: ++n, method, ...(params !== undefined && { params }) }, headers);
  return {
    post,
    rpc,
    async call(name: string, args?: unknown): Promise<ToolCall> {
      const res = await rpc('tools/call', { name, ...(args !== undefined && { arguments: args }) });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.body.error) return { res, error: res.body.error, isError: false, body: undefined };
      const result = res.body.result;
      return { res, isError: result.isError === true, body: JSON.parse(result.content[0].text) };
    },
    async listNames(): Promise<string[]> {
      const res = await rpc('tools/list');
      return res.body.result.tools.map((t: { name: string }) => t.name);
    },
  };
}

/** A new account with a key of these scopes, its MCP client, and a REST client to set up what the tools act on. */
export async function mcpAccount(s: TestServer, opts: { scopes?: string[]; limit?: number } = {}) {
  const a = await s.restAccount(opts);
  return { ...a, mcp: mcpClient(s.url, a.key) };
}

/** The tool error of a key that lacks `scope`. */
export const forbidden = (scope: string) => ({
  error: 'Forbidden',
  message: `API key lacks the required permission: ${scope}`,
});
