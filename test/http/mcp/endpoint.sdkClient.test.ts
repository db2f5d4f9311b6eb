// The official @modelcontextprotocol/sdk Client over Streamable HTTP (bearer key in the request headers)
// against the real server: connect (initialize + notifications/initialized + its GET probe, which gets 405),
// list tools, call tools, and see protocol errors surface as McpError.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL_VERSIONS } from '../../../src/http/mcp/endpoint.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer({ after });

async function connect(key: string) {
  const client = new Client({ name: 'mailgrove-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  after(() => client.close());
  return client;
}

const text = (r: any) => JSON.parse(r.content[0].text);

describe('MCP SDK client (Streamable HTTP, bearer header)', () => {
  test('connects: negotiated protocol, server info and tool capability', async () => {
    const { key } = await s.newAccount();
    const client = await connect(key);
    assert.deepEqual(client.getServerVersion(), { name: 'mailgrove', title: 'Mailgrove', version: s.config.version });
    assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
    assert.equal(typeof client.getInstructions(), 'string');
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
    // our newest revision is the SDK's newest, and every one we negotiate is one the SDK knows
    assert.equal(PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
    for (const v of PROTOCOL_VERSIONS) assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes(v), v);
  });

  test('lists tools filtered by the key scopes, and calls tools end to end', async () => {
    const { key } = await s.newAccount({ scopes: ['subscribers:*', 'groups:*'] });
    const client = await connect(key);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('add_subscriber') && names.includes('create_group'));
    assert.ok(!names.some((n) => n.includes('campaign') || n.includes('webhook')));
    const group = text(await client.callTool({ name: 'create_group', arguments: { name: 'SDK' } })).data;
    const added = await client.callTool({
      name: 'add_subscriber',
      arguments: { email: 'sdk@example.com', first_name: 'Sdk', groups: [group.id] },
    });
    assert.equal(added.isError, undefined);
    const sub = text(added).data;
    const got = text(await client.callTool({ name: 'get_subscriber', arguments: { email: 'SDK@example.com' } }));
    assert.equal(got.success, true);
    assert.equal(got.data.id, sub.id);
    assert.deepEqual(got.data.groups, [{ id: group.id, name: 'SDK' }]);
    const listed = text(await client.callTool({ name: 'list_subscribers', arguments: { per_page: 10 } }));
    assert.deepEqual(listed.meta, { current_page: 1, last_page: 1, per_page: 10, total: 1 });
    await client.ping();
  });

  test('a tool error arrives as isError with the JSON text; a missing scope as Forbidden', async () => {
    const { key } = await s.newAccount({ scopes: ['subscribers:read'] });
    const client = await connect(key);
    const missing = await client.callTool({
      name: 'get_subscriber',
      arguments: { subscriber_id: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(missing.isError, true);
    assert.deepEqual(text(missing), { error: 'Subscriber not found' });
    const denied = await client.callTool({ name: 'create_group', arguments: { name: 'x' } });
    assert.equal(denied.isError, true);
    assert.deepEqual(text(denied), {
      error: 'Forbidden',
      message: 'API key lacks the required permission: groups:write',
    });
  });

  test('protocol errors surface as McpError: unknown tool and missing email are -32602 (InvalidParams)', async () => {
    const { key } = await s.newAccount();
    const client = await connect(key);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err: unknown) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, /Unknown tool: no_such_tool/);
      return true;
    });
    await assert.rejects(
      client.callTool({ name: 'add_subscriber', arguments: { first_name: 'No email' } }),
      (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.match(err.message, /A valid email address is required/);
        return true;
      },
    );
  });

  test('a bad key cannot connect (401)', async () => {
    const client = new Client({ name: 'mailgrove-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer mailgrove_${'a'.repeat(32)}` } },
    });
    await assert.rejects(client.connect(transport), /401|Unauthorized/);
  });
});
