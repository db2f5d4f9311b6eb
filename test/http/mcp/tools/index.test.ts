// spec "Scopes and the tools they unlock": tools/list returns exactly the tools a key's scopes permit, in a
// stable order, each with a JSON Schema inputSchema, a description and annotations.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { mcpClient } from '../client.ts';

// the spec's table, word for word: 44 tools and the scope that unlocks each
const SPEC_TOOLS: Record<string, string> = {
  list_subscribers: 'subscribers:read',
  get_subscriber: 'subscribers:read',
  get_subscriber_count: 'subscribers:read',
  get_subscriber_activity: 'subscribers:read',
  get_single_import: 'subscribers:read',
  list_segments: 'subscribers:read',
  get_subscribers_in_segment: 'subscribers:read',
  add_subscriber: 'subscribers:write',
  update_subscriber: 'subscribers:write',
  delete_subscriber: 'subscribers:write',
  forget_subscriber: 'subscribers:write',
  assign_subscriber_to_group: 'subscribers:write',
  unassign_subscriber_from_group: 'subscribers:write',
  import_subscribers_to_group: 'subscribers:write',
  update_segment: 'subscribers:write',
  delete_segment: 'subscribers:write',
  get_campaign: 'campaigns:read',
  list_campaigns: 'campaigns:read',
  get_campaign_subscribers: 'campaigns:read',
  create_campaign: 'campaigns:write',
  update_campaign: 'campaigns:write',
  delete_campaign: 'campaigns:write',
  schedule_campaign: 'campaigns:write',
  cancel_campaign: 'campaigns:write',
  list_groups: 'groups:read',
  get_group_subscribers: 'groups:read',
  create_group: 'groups:write',
  update_group: 'groups:write',
  delete_group: 'groups:write',
  list_webhooks: 'webhooks:read',
  get_webhook: 'webhooks:read',
  create_webhook: 'webhooks:write',
  update_webhook: 'webhooks:write',
  delete_webhook: 'webhooks:write',
  list_automations: 'automations:read',
  get_automation: 'automations:read',
  get_automation_activity: 'automations:read',
  create_automation: 'automations:write',
  delete_automation: 'automations:write',
  list_forms: 'forms:read',
  get_form: 'forms:read',
  get_form_subscribers: 'forms:read',
  update_form: 'forms:write',
  delete_form: 'forms:write',
};
const RESOURCES = ['subscribers', 'campaigns', 'groups', 'webhooks', 'automations', 'forms'];

const s = await startServer({ after });

async function listFor(scopes: string[]) {
  const { key } = await s.newAccount({ scopes });
  return mcpClient(s.url, key).listNames();
}
const expected = (pred: (scope: string) => boolean) =>
  Object.keys(SPEC_TOOLS)
    .filter((n) => pred(SPEC_TOOLS[n]!))
    .sort();

describe('tools/list filtered by scope', () => {
  test('the spec table has 44 tools', () => {
    assert.equal(Object.keys(SPEC_TOOLS).length, 44);
  });

  test('* → all 44 tools, exactly the spec names', async () => {
    const names = await listFor(['*']);
    assert.equal(names.length, 44);
    assert.deepEqual(
      [...names].sort(),
      expected(() => true),
    );
  });

  for (const resource of RESOURCES) {
    test(`${resource}:read → exactly the ${resource}:read tools`, async () => {
      assert.deepEqual(
        (await listFor([`${resource}:read`])).sort(),
        expected((sc) => sc === `${resource}:read`),
      );
    });
    test(`${resource}:write → exactly the ${resource}:write tools`, async () => {
      assert.deepEqual(
        (await listFor([`${resource}:write`])).sort(),
        expected((sc) => sc === `${resource}:write`),
      );
    });
    test(`${resource}:* → all read and write tools of ${resource}`, async () => {
      assert.deepEqual(
        (await listFor([`${resource}:*`])).sort(),
        expected((sc) => sc.startsWith(`${resource}:`)),
      );
    });
  }

  test('a multi-scope key (subscribers:read, groups:*, forms:write) → the union', async () => {
    const want = expected((sc) => sc === 'subscribers:read' || sc.startsWith('groups:') || sc === 'forms:write');
    assert.deepEqual((await listFor(['subscribers:read', 'groups:*', 'forms:write'])).sort(), want);
  });

  test('the order is stable: the same list twice, and a narrower key sees the same relative order', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    const m = mcpClient(s.url, key);
    const first = await m.listNames();
    assert.deepEqual(await m.listNames(), first);
    const narrow = await listFor(['groups:*', 'subscribers:read']);
    assert.deepEqual(
      narrow,
      first.filter((n) => narrow.includes(n)),
    );
  });

  test('every tool has a title, a description, an object inputSchema with described properties, and annotations', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    const res = await mcpClient(s.url, key).rpc('tools/list');
    for (const tool of res.body.result.tools) {
      assert.ok(tool.title && typeof tool.title === 'string', tool.name);
      assert.ok(tool.description.length >= 60, `${tool.name}: description too short for an agent`);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.inputSchema.$schema, undefined);
      for (const [prop, schema] of Object.entries<any>(tool.inputSchema.properties)) {
        assert.ok(schema.description, `${tool.name}.${prop} has no description`);
      }
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'])
        assert.equal(typeof tool.annotations[hint], 'boolean', `${tool.name}.${hint}`);
      assert.equal(
        tool.annotations.readOnlyHint,
        SPEC_TOOLS[tool.name]!.endsWith(':read'),
        `${tool.name}: readOnlyHint follows its scope`,
      );
    }
  });

  test('<resource>_id arguments are UUIDs and list tools take page/per_page', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    const res = await mcpClient(s.url, key).rpc('tools/list');
    for (const tool of res.body.result.tools) {
      const props = tool.inputSchema.properties as Record<string, any>;
      for (const [prop, schema] of Object.entries(props)) {
        if (/_id$/.test(prop)) assert.equal(schema.format, 'uuid', `${tool.name}.${prop}`);
      }
      if (/^list_|^get_.*_(subscribers|activity)$|^get_subscribers_in_segment$/.test(tool.name)) {
        assert.equal(props.page?.default, 1, `${tool.name}.page`);
        assert.equal(props.per_page?.default, 25, `${tool.name}.per_page`);
      }
    }
  });
});
