// Every tool declares its answer: an outputSchema (tools/list) converted once from the zod `output` beside the
// tool, an object at the root as MCP requires, open objects (no additionalProperties: false), the list tools with
// meta. A successful tools/call carries structuredContent unless the MCP-Protocol-Version header names a revision
// from before it (2025-03-26); tool errors never do.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { wantsStructuredContent } from '../../../src/http/mcp/endpoint.ts';
import { catalogue, listFor } from '../../../src/http/mcp/schemas.ts';
import { startServer } from '../../support/server.ts';
import { mcpClient } from './client.ts';

const s = await startServer({ after });

const LIST_TOOLS =
  /^list_|^get_subscriber_activity$|^get_group_subscribers$|^get_subscribers_in_segment$|^get_campaign_subscribers$|^get_automation_activity$|^get_form_subscribers$/;

function walk(node: unknown, visit: (n: Record<string, unknown>, path: string) => void, path = '$'): void {
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, visit, `${path}[${i}]`));
  if (node === null || typeof node !== 'object') return;
  visit(node as Record<string, unknown>, path);
  for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}.${k}`);
}

describe('outputSchema of every tool (catalogue)', () => {
  const entries = catalogue().entries;

  test('44 tools, each with an object outputSchema {success: true, data, meta?}', () => {
    assert.equal(entries.length, 44);
    for (const { tool, listing } of entries) {
      const o = listing.outputSchema as any;
      assert.equal(o.type, 'object', tool.name);
      assert.equal(o.$schema, undefined, tool.name);
      assert.deepEqual(o.properties.success, { type: 'boolean', const: true }, tool.name);
      assert.ok(o.properties.data, tool.name);
      const required = LIST_TOOLS.test(tool.name) ? ['success', 'data', 'meta'] : ['success', 'data'];
      assert.deepEqual(o.required, required, tool.name);
      if (LIST_TOOLS.test(tool.name)) {
        assert.equal(o.properties.data.type, 'array', tool.name);
        assert.deepEqual(o.properties.meta.required, ['current_page', 'last_page', 'per_page', 'total']);
      }
    }
  });

  test('no object is closed, and no safe-integer noise is left', () => {
    for (const { tool, listing } of entries)
      walk(listing.outputSchema, (n, path) => {
        assert.notEqual(n.additionalProperties, false, `${tool.name} ${path}`);
        assert.notEqual(n.maximum, Number.MAX_SAFE_INTEGER, `${tool.name} ${path}`);
      });
  });

  test('nullable view fields are nullable, and ids and times have formats', () => {
    const data = (name: string) => {
      const o = entries.find((e) => e.tool.name === name)!.listing.outputSchema as any;
      return o.properties.data.type === 'array' ? o.properties.data.items : o.properties.data;
    };
    const sub = data('get_subscriber');
    assert.deepEqual(sub.properties.first_name, { type: ['string', 'null'] });
    assert.equal(sub.properties.id.format, 'uuid');
    assert.equal(sub.properties.created_at.format, 'date-time');
    assert.ok(sub.required.includes('notes') && sub.required.includes('custom_fields'));
    const campaign = data('get_campaign');
    assert.deepEqual(campaign.properties.scheduled_at.anyOf[1], { type: 'null' });
    assert.ok(campaign.required.includes('stats'));
    assert.deepEqual(data('delete_group').properties.deleted, { type: 'boolean', const: true });
    assert.ok(data('add_subscriber').required.includes('created'));
    assert.ok(data('get_webhook').required.includes('secret'));
    assert.ok(!data('list_webhooks').required.includes('secret'));
    assert.equal(data('get_subscriber_count').anyOf.length, 2);
  });

  test('computed once: the same objects on every tools/list', () => {
    assert.equal(listFor(['*'])[0]!.outputSchema, listFor(['*'])[0]!.outputSchema);
  });
});

describe('structuredContent and the MCP-Protocol-Version header', () => {
  test('wantsStructuredContent: only a revision before 2025-06-18 goes without', () => {
    assert.equal(wantsStructuredContent(undefined), true);
    assert.equal(wantsStructuredContent('2025-11-25'), true);
    assert.equal(wantsStructuredContent('2025-06-18'), true);
    assert.equal(wantsStructuredContent('2099-01-01'), true);
    assert.equal(wantsStructuredContent('2025-03-26'), false);
    assert.equal(wantsStructuredContent('2024-11-05'), false);
    assert.equal(wantsStructuredContent(['2025-03-26']), false);
  });

  test('tools/list lists an outputSchema for every tool the key may see', async () => {
    const { key } = await s.newAccount({ scopes: ['groups:read'] });
    const res = await mcpClient(s.url, key).rpc('tools/list');
    const tools = res.body.result.tools;
    assert.deepEqual(
      tools.map((t: any) => t.name),
      ['list_groups', 'get_group_subscribers'],
    );
    for (const t of tools) assert.equal(t.outputSchema.type, 'object');
  });

  test('a success carries structuredContent equal to its text; with 2025-03-26 only the text', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    const m = mcpClient(s.url, key);
    const params = { name: 'create_group', arguments: { name: 'Plain' } };
    for (const header of [undefined, '2025-11-25', '2025-06-18']) {
      const res = await m.rpc(
        'tools/call',
        { name: 'list_groups', arguments: {} },
        header ? { 'mcp-protocol-version': header } : {},
      );
      const result = res.body.result;
      assert.deepEqual(result.structuredContent, JSON.parse(result.content[0].text), String(header));
      assert.equal(result.structuredContent.success, true);
    }
    const created = (await m.rpc('tools/call', params)).body.result;
    assert.equal(created.structuredContent.data.name, 'Plain');
    assert.equal(created.structuredContent.data.created_at, JSON.parse(created.content[0].text).data.created_at);
    const old = (
      await m.rpc('tools/call', { name: 'list_groups', arguments: {} }, { 'mcp-protocol-version': '2025-03-26' })
    ).body.result;
    assert.equal(old.structuredContent, undefined);
    assert.equal(JSON.parse(old.content[0].text).data[0].name, 'Plain');
  });

  test('tool errors (not found, Forbidden) have no structuredContent', async () => {
    const { key } = await s.newAccount({ scopes: ['groups:read'] });
    const m = mcpClient(s.url, key);
    const missing = (
      await m.rpc('tools/call', {
        name: 'get_group_subscribers',
        arguments: { group_id: '00000000-0000-4000-8000-000000000000' },
      })
    ).body.result;
    assert.equal(missing.isError, true);
    assert.equal(missing.structuredContent, undefined);
    assert.deepEqual(JSON.parse(missing.content[0].text), { error: 'Group not found' });
    const denied = (await m.rpc('tools/call', { name: 'create_group', arguments: { name: 'x' } })).body.result;
    assert.equal(denied.isError, true);
    assert.equal(denied.structuredContent, undefined);
  });
});
