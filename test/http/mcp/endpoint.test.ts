// The tool endpoint's protocol rules (spec "Tool endpoint", "Errors"), one test per rule,
// against the real server. Tool behaviour is tested per resource in the other files of this folder.
import assert from 'node:assert/strict';
import { MCP_BODY_LIMIT } from '../../../src/http/mcp/endpoint.ts';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import * as apiKeys from '../../../src/domain/accounts/apiKeys.ts';
import { client, startServer } from '../../support/server.ts';
import { mcpAccount, mcpClient } from './client.ts';

const ALLOWED_ORIGIN = 'https://app.example.com';
// one test makes a query fail on purpose to see the -32603 envelope
const s = await startServer(
  { after },
  { MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example.com` },
  { allowInternalErrors: true },
);

const account = (scopes = ['*']) => mcpAccount(s, { scopes });

const raw = (body: string, headers: Record<string, string> = {}, key?: string) =>
  fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { ...(key && { authorization: `Bearer ${key}` }), ...headers },
    body,
  });

describe('Tool endpoint › HTTP layer', () => {
  for (const method of ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) {
    test(`405 for ${method} (any method other than POST), with Allow: POST, before authentication`, async () => {
      const res = await fetch(`${s.url}/mcp`, { method });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    });
  }

  test('405 also on /mcp/ with a trailing slash; POST /mcp/ works', async () => {
    assert.equal((await fetch(`${s.url}/mcp/`)).status, 405);
    const { key } = await account();
    const res = await client(s.url, key).post('/mcp/', { jsonrpc: '2.0', id: 1, method: 'ping' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { jsonrpc: '2.0', id: 1, result: {} });
  });

  test('403 when the Origin header is not in MCP_ALLOWED_ORIGINS; a listed Origin and no Origin are fine', async () => {
    const { key } = await account();
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const evil = await raw(ping, { 'content-type': 'application/json', origin: 'https://evil.example.com' }, key);
    assert.equal(evil.status, 403);
    assert.deepEqual(await evil.json(), { error: 'Forbidden', message: 'Origin not allowed' });
    assert.equal((await raw(ping, { 'content-type': 'application/json', origin: ALLOWED_ORIGIN }, key)).status, 200);
    assert.equal(
      (await raw(ping, { 'content-type': 'application/json', origin: 'https://other.example.com' }, key)).status,
      200,
    );
    assert.equal((await raw(ping, { 'content-type': 'application/json' }, key)).status, 200);
  });

  const unauthorized = async (headers: Record<string, string>) => {
    const res = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), {
      'content-type': 'application/json',
      ...headers,
    });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: 'Unauthorized' });
  };

  test('401 {"error":"Unauthorized"} without an Authorization header', () => unauthorized({}));
  test('401 for a header not in Bearer form', async () => {
    const { key } = await account();
    await unauthorized({ authorization: `Basic ${key}` });
    await unauthorized({ authorization: key });
  });
  test('401 for an unknown key', () => unauthorized({ authorization: `Bearer mailgrove_${'0'.repeat(32)}` }));
  test('401 for a revoked key: revocation takes effect on the next request', async () => {
    const { accountId } = await account();
    const k = await s.newKey(accountId, ['*']);
    const m = mcpClient(s.url, k.key);
    assert.equal((await m.rpc('ping')).status, 200);
    await apiKeys.revoke(s.db, accountId, k.id);
    await unauthorized({ authorization: `Bearer ${k.key}` });
  });
  test('401 for an expired key', async () => {
    const { accountId } = await account();
    const k = await s.newKey(accountId, ['*'], { expires_at: new Date(Date.now() - 1000) });
    await unauthorized({ authorization: `Bearer ${k.key}` });
  });

  test('413 for a body over MCP_BODY_LIMIT (8 MB; 50,000 import rows fit)', async () => {
    const { key } = await account();
    const res = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(MCP_BODY_LIMIT) } }),
      { 'content-type': 'application/json' },
      key,
    );
    assert.equal(res.status, 413);
  });

  test('responses are JSON with RateLimit-Limit/Remaining/Reset headers', async () => {
    const { mcp } = await account();
    const res = await mcp.rpc('ping');
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    assert.equal(res.headers.get('ratelimit-limit'), '120');
    assert.equal(res.headers.get('ratelimit-remaining'), '119');
    assert.ok(Number(res.headers.get('ratelimit-reset')) > 0);
  });

  test('Accept: application/json alone is accepted (and no Accept at all); the answer is JSON, never SSE', async () => {
    const { key } = await account();
    for (const headers of [
      { accept: 'application/json' },
      {},
      { accept: 'application/json, text/event-stream' },
    ] as Record<string, string>[]) {
      const res = await raw(
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
        { 'content-type': 'application/json', ...headers },
        key,
      );
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^application\/json/);
      assert.deepEqual(await res.json(), { jsonrpc: '2.0', id: 7, result: {} });
    }
  });
});

describe('Tool endpoint › JSON-RPC errors', () => {
  test("-32700 Parse error with id null for a malformed body (not Fastify's 400), whatever the content type", async () => {
    const { key } = await account();
    for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'text/plain' }, {}] as Record<
      string,
      string
    >[]) {
      const res = await raw('{"jsonrpc": "2.0", "id": 1, "method": ', headers, key);
      assert.equal(res.status, 200);
      const body = (await res.json()) as any;
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32700);
    }
    const empty = await raw('', { 'content-type': 'application/json' }, key);
    assert.equal(((await empty.json()) as any).error.code, -32700);
  });

  test('-32600 when jsonrpc is missing: the message talks about the missing jsonrpc version; id still echoes', async () => {
    const { mcp } = await account();
    const res = await mcp.post({ id: 5, method: 'ping' });
    assert.equal(res.body.error.code, -32600);
    assert.match(res.body.error.message, /missing jsonrpc version/i);
    assert.equal(res.body.id, 5);
  });

  test('-32600 when jsonrpc is not "2.0"', async () => {
    const { mcp } = await account();
    for (const jsonrpc of ['1.0', 2, null]) {
      const res = await mcp.post({ jsonrpc, id: 'a', method: 'ping' });
      assert.equal(res.body.error.code, -32600);
      assert.match(res.body.error.message, /invalid jsonrpc version/i);
    }
  });

  test('-32600 when method is not a string', async () => {
    const { mcp } = await account();
    for (const method of [42, null, ['ping'], undefined]) {
      const res = await mcp.post({ jsonrpc: '2.0', id: 1, method });
      assert.equal(res.body.error.code, -32600, JSON.stringify(method));
      assert.match(res.body.error.message, /method must be a string/);
    }
  });

  test('-32600 for batch arrays (id null)', async () => {
    const { mcp } = await account();
    const res = await mcp.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    assert.deepEqual(res.body.id, null);
    assert.equal(res.body.error.code, -32600);
    assert.match(res.body.error.message, /batch/i);
  });

  test('-32600 for a body that is JSON but not an object', async () => {
    const { key } = await account();
    for (const body of ['42', '"ping"', 'null', 'true']) {
      const res = await raw(body, { 'content-type': 'application/json' }, key);
      assert.equal(((await res.json()) as any).error.code, -32600, body);
    }
  });

  test('-32601 "Method not found: <name>"', async () => {
    const { mcp } = await account();
    for (const method of ['tools/destroy', 'resources/list', 'prompts/list']) {
      const res = await mcp.rpc(method);
      assert.deepEqual(res.body.error, { code: -32601, message: `Method not found: ${method}` });
    }
  });

  test('-32602 "Unknown tool: <name>"', async () => {
    const { mcp } = await account();
    const r = await mcp.call('launch_rockets', {});
    assert.deepEqual(r.error, { code: -32602, message: 'Unknown tool: launch_rockets' });
  });

  test('-32602 when arguments is not an object', async () => {
    const { mcp } = await account();
    for (const args of [[], 'email=a@b.co', 5, null]) {
      const res = await mcp.rpc('tools/call', { name: 'get_subscriber_count', arguments: args });
      assert.equal(res.body.error.code, -32602, JSON.stringify(args));
      assert.match(res.body.error.message, /arguments must be an object/);
    }
  });

  test('-32602 for add_subscriber without email (spec), with the validation text', async () => {
    const { mcp } = await account();
    const r = await mcp.call('add_subscriber', { first_name: 'Ada' });
    assert.equal(r.error?.code, -32602);
    assert.match(r.error!.message, /A valid email address is required/);
    assert.deepEqual(r.error!.data.fields, { email: ['A valid email address is required'] });
  });

  test('-32602 for a schema violation names the field (invalid email, non-UUID id)', async () => {
    const { mcp } = await account();
    assert.equal(
      (await mcp.call('add_subscriber', { email: 'not-an-email' })).error?.message,
      'email: A valid email address is required',
    );
    assert.equal(
      (await mcp.call('get_subscriber', { subscriber_id: '42' })).error?.message,
      'subscriber_id: subscriber_id must be a UUID',
    );
  });

  test('-32602 for text PostgreSQL cannot store (NUL, unpaired surrogate) anywhere in the arguments, naming the field', async () => {
    const { mcp } = await account();
    const nul = await mcp.call('add_subscriber', { email: 'a@example.com', first_name: 'A\u0000da' });
    assert.equal(nul.error?.code, -32602);
    assert.match(nul.error!.message, /^first_name: Must not contain NUL/);
    assert.equal((await mcp.call('get_subscriber', { email: 'x\ud800@example.com' })).error?.code, -32602);
    assert.equal(
      (await mcp.call('add_subscriber', { email: 'a@example.com', custom_fields: { 'k\u0000': 1 } })).error?.code,
      -32602,
    );
  });

  test('-32602 for arguments nested deeper than 64 levels (a schema recursing on them would overflow the stack)', async () => {
    const { key } = await account();
    const d = 30_000;
    const filter = '{"match":"all","rules":['.repeat(d) + ']}'.repeat(d);
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"update_segment","arguments":{"segment_id":"00000000-0000-4000-8000-000000000000","filter":${filter}}}}`;
    const res = (await (await raw(body, { 'content-type': 'application/json' }, key)).json()) as any;
    assert.deepEqual(res.error, {
      code: -32602,
      message: 'Invalid params: arguments are nested more than 64 levels deep',
    });
  });

  test('-32602 when the tool name is missing from params', async () => {
    const { mcp } = await account();
    assert.equal((await mcp.rpc('tools/call', { arguments: {} })).body.error.code, -32602);
    assert.equal((await mcp.rpc('tools/call')).body.error.code, -32602);
  });

  test('-32603 Internal error for an unexpected exception: a request id, no stack, nothing internal', async () => {
    const { mcp } = await account();
    // put a view that fails when read in place of the table: get_subscriber's query fails the way a real
    // outage would (a view in this schema, not a plain rename, because on PostgreSQL the search_path could fall
    // back to a public.subscribers; tests in a file run one at a time, so nothing else needs the table meanwhile)
    await sql`alter table subscribers rename to subscribers_away`.execute(s.db);
    await sql`create view subscribers as select * from subscribers_away where (select 1 / 0) = 1`.execute(s.db);
    try {
      const r = await mcp.call('get_subscriber', { email: 'ada@example.com' });
      assert.equal(r.error?.code, -32603);
      assert.equal(r.error!.message, 'Internal error');
      assert.match(r.error!.data.request_id, /\S/);
      assert.doesNotMatch(JSON.stringify(r.res.body), /division|subscribers|at .*\.ts|relation/);
    } finally {
      await sql`drop view subscribers`.execute(s.db);
      await sql`alter table subscribers_away rename to subscribers`.execute(s.db);
    }
  });
});

describe('Tool endpoint › tool errors and results', () => {
  test('missing scope → tool error Forbidden, "API key lacks the required permission: <scope>", isError, HTTP 200', async () => {
    const { mcp } = await account(['subscribers:read']);
    const r = await mcp.call('add_subscriber', { email: 'ada@example.com' });
    assert.equal(r.res.status, 200);
    assert.equal(r.isError, true);
    assert.deepEqual(r.body, {
      error: 'Forbidden',
      message: 'API key lacks the required permission: subscribers:write',
    });
  });

  test('schema is checked before scope: a key without the scope still gets -32602 for bad params', async () => {
    const { mcp } = await account(['groups:read']);
    assert.equal((await mcp.call('add_subscriber', {})).error?.code, -32602);
  });

  test('success result: content [{type:"text", text: {"success":true,"data":…}}]', async () => {
    const { mcp } = await account();
    const res = await mcp.rpc('tools/call', { name: 'get_subscriber_count', arguments: {} });
    assert.equal(res.body.result.isError, undefined);
    assert.equal(res.body.result.content.length, 1);
    assert.equal(res.body.result.content[0].type, 'text');
    assert.deepEqual(JSON.parse(res.body.result.content[0].text), {
      success: true,
      data: { total: 0, active: 0, unsubscribed: 0, bounced: 0, complained: 0 },
    });
  });

  test('arguments may be omitted for tools without required arguments', async () => {
    const { mcp } = await account();
    const r = await mcp.call('list_groups');
    assert.deepEqual(r.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 0 });
  });
});

describe('Tool endpoint › envelope and methods', () => {
  test('the id echoes back: string, number and null', async () => {
    const { mcp } = await account();
    for (const id of ['req-1', 42, 0, null, 1.5]) {
      const res = await mcp.post({ jsonrpc: '2.0', id, method: 'ping' });
      assert.deepEqual(res.body, { jsonrpc: '2.0', id, result: {} });
    }
  });

  test('the id echoes back on errors too', async () => {
    const { mcp } = await account();
    const res = await mcp.post({ jsonrpc: '2.0', id: 'abc', method: 'nope' });
    assert.equal(res.body.id, 'abc');
  });

  test('notifications (no id, or notifications/*) → 202 with an empty body', async () => {
    const { key, mcp } = await account();
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', method: 'ping' },
    ]) {
      const res = await raw(JSON.stringify(body), { 'content-type': 'application/json' }, key);
      assert.equal(res.status, 202, JSON.stringify(body));
      assert.equal(await res.text(), '');
    }
    // a client's JSON-RPC response is accepted the same way
    assert.equal((await mcp.post({ jsonrpc: '2.0', id: 3, result: {} })).status, 202);
  });

  test('initialize echoes each supported protocol version, with serverInfo, capabilities.tools and instructions', async () => {
    const { mcp } = await account();
    for (const v of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await mcp.rpc('initialize', {
        protocolVersion: v,
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      const r = res.body.result;
      assert.equal(r.protocolVersion, v);
      assert.deepEqual(r.capabilities, { tools: { listChanged: false } });
      assert.equal(r.serverInfo.name, 'mailgrove');
      assert.equal(r.serverInfo.version, s.config.version);
      assert.equal(typeof r.instructions, 'string');
    }
  });

  test('initialize with an unsupported protocol version answers the latest (2025-11-25)', async () => {
    const { mcp } = await account();
    for (const v of ['2024-11-05', '1999-01-01', undefined]) {
      const res = await mcp.rpc('initialize', {
        protocolVersion: v,
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      assert.equal(res.body.result.protocolVersion, '2025-11-25');
    }
  });

  test('ping → empty result', async () => {
    const { mcp } = await account(['forms:read']);
    assert.deepEqual((await mcp.rpc('ping')).body, { jsonrpc: '2.0', id: 1, result: {} });
  });
});
