// The automation tools (spec scopes automations:read / automations:write; "Automation", "Tool
// conventions"): happy path, not found, validation, Forbidden, and another account's id → not found.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { mcpAccount, mcpClient } from '../client.ts';

const s = await startServer(fileScope);
const MISSING = '00000000-0000-4000-8000-000000000000';

const account = (scopes = ['*']) => mcpAccount(s, { scopes });

async function groupOf(mcp: ReturnType<typeof mcpClient>, name = 'Welcome') {
  const r = await mcp.call('create_group', { name });
  return r.body.data.id as string;
}

const steps = (groupId: string) => [
  { type: 'send_email', subject: 'Hi {{ subscriber.first_name }}', content_html: '<p>Welcome</p>' },
  { type: 'delay', amount: 2, unit: 'days' },
  {
    type: 'condition',
    filter: { match: 'all', rules: [{ field: 'group', operator: 'in', value: [groupId] }] },
    then: [{ type: 'remove_from_group', group_id: groupId }],
  },
];

async function createOne(mcp: ReturnType<typeof mcpClient>, extra: Record<string, unknown> = {}) {
  const groupId = await groupOf(mcp, `G ${Math.random()}`);
  const r = await mcp.call('create_automation', {
    name: 'Welcome series',
    trigger: { type: 'joined_group', group_id: groupId },
    steps: steps(groupId),
    ...extra,
  });
  assert.equal(r.isError, false, JSON.stringify(r.body ?? r.error));
  return r.body.data;
}

describe('create_automation', () => {
  test('creates an enabled automation with its trigger, steps and zeroed stats', async () => {
    const { mcp } = await account();
    const a = await createOne(mcp);
    assert.equal(a.enabled, true);
    assert.equal(a.name, 'Welcome series');
    assert.equal(a.trigger.type, 'joined_group');
    assert.equal(a.steps.length, 3);
    assert.deepEqual(a.steps[2].else, [], 'a missing branch is an empty list');
    assert.deepEqual(a.stats, {
      started: 0,
      active: 0,
      completed: 0,
      canceled: 0,
      failed: 0,
      emails_sent: 0,
      opens: 0,
      unique_opens: 0,
      clicks: 0,
      unique_clicks: 0,
      unsubscribes: 0,
      bounces: 0,
      complaints: 0,
      soft_bounces: 0,
    });
  });

  test('-32602 for a schema violation: unknown trigger, bad delay unit, no steps', async () => {
    const { mcp } = await account();
    const bad = await mcp.call('create_automation', {
      name: 'x',
      trigger: { type: 'sometimes' },
      steps: [{ type: 'delay', amount: 1, unit: 'days' }],
    });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /^trigger\.type: Trigger type must be one of: subscriber_created, /);
    const unit = await mcp.call('create_automation', {
      name: 'x',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'delay', amount: 1, unit: 'weeks' }],
    });
    assert.equal(unit.error?.message, 'steps.0.unit: unit must be one of: minutes, hours, days');
    const none = await mcp.call('create_automation', { name: 'x', trigger: { type: 'subscriber_created' }, steps: [] });
    assert.equal(none.error?.message, 'steps: At least one step is required');
  });

  test('a group of another account, a broken template and an unknown field are tool errors naming each path', async () => {
    const a = await account();
    const b = await account();
    const foreign = await groupOf(b.mcp);
    const r = await a.mcp.call('create_automation', {
      name: 'x',
      trigger: { type: 'joined_group', group_id: foreign },
      steps: [
        { type: 'send_email', subject: 'Hi {{ subscriber.first_name', content_html: '<p>x</p>' },
        {
          type: 'condition',
          filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] },
          then: [{ type: 'update_field', field: 'shoe_size', value: 42 }],
        },
      ],
    });
    assert.equal(r.isError, true);
    assert.equal(r.body.error, 'trigger.group_id: Group not found');
    assert.deepEqual(Object.keys(r.body.data).sort(), ['steps.0.subject', 'steps.1.then.0.field', 'trigger.group_id']);
    assert.match(r.body.data['steps.0.subject'][0], /^Template error: /);
  });

  test('Forbidden without automations:write', async () => {
    const { mcp } = await account(['automations:read']);
    const r = await mcp.call('create_automation', {
      name: 'x',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'delay', amount: 1, unit: 'days' }],
    });
    assert.deepEqual(r.body, {
      error: 'Forbidden',
      message: 'API key lacks the required permission: automations:write',
    });
  });
});

describe('get_automation / list_automations', () => {
  test("get returns the automation; list pages this account's automations only, newest first", async () => {
    const a = await account(['automations:*', 'groups:write']);
    const b = await account();
    await createOne(b.mcp);
    const first = await createOne(a.mcp, { name: 'first' });
    await createOne(a.mcp, { name: 'second' });
    const got = await a.mcp.call('get_automation', { automation_id: first.id });
    assert.equal(got.body.data.name, 'first');
    assert.deepEqual(got.body.data.steps, first.steps);
    const page = await a.mcp.call('list_automations', { per_page: 1 });
    assert.deepEqual(page.body.meta, { current_page: 1, last_page: 2, per_page: 1, total: 2 });
    assert.equal(page.body.data[0].name, 'second');
  });

  test('"Automation not found" for a missing id and another account\'s id; -32602 for a non-UUID; Forbidden without read', async () => {
    const a = await account();
    const b = await account();
    const mine = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('get_automation', { automation_id: mine.id })).body, {
      error: 'Automation not found',
    });
    assert.deepEqual((await a.mcp.call('get_automation', { automation_id: MISSING })).body, {
      error: 'Automation not found',
    });
    assert.equal((await a.mcp.call('get_automation', { automation_id: '42' })).error?.code, -32602);
    const other = await account(['webhooks:*']);
    assert.equal(
      (await other.mcp.call('list_automations', {})).body.message,
      'API key lacks the required permission: automations:read',
    );
  });
});

describe('get_automation_activity', () => {
  test('shows each run with status, history and paging; filters by status', async () => {
    const { mcp } = await account();
    const created = await mcp.call('create_automation', {
      name: 'Tag new MCP subscribers',
      trigger: { type: 'subscriber_created', source: 'mcp' },
      steps: [{ type: 'update_field', field: 'last_name', value: 'From MCP' }],
    });
    const id = created.body.data.id;
    await mcp.call('add_subscriber', { email: 'one@example.com' });
    await mcp.call('add_subscriber', { email: 'two@example.com' });
    const deadline = Date.now() + 10_000;
    let runs;
    do {
      await new Promise((r) => setTimeout(r, 100));
      runs = await mcp.call('get_automation_activity', { automation_id: id, status: 'completed' });
    } while (runs.body.data.length < 2 && Date.now() < deadline);
    assert.deepEqual(runs.body.meta, { current_page: 1, last_page: 1, per_page: 25, total: 2 });
    const run = runs.body.data[0];
    assert.equal(run.status, 'completed');
    assert.equal(run.current_step, null);
    assert.deepEqual(
      run.history.map((h: any) => h.result),
      ['started', 'updated', 'completed'],
    );
    assert.match(run.subscriber.email, /^(one|two)@example\.com$/);
    assert.deepEqual(
      (await mcp.call('get_automation_activity', { automation_id: id, status: 'active' })).body.data,
      [],
    );
    const stats = (await mcp.call('get_automation', { automation_id: id })).body.data.stats;
    assert.deepEqual([stats.started, stats.completed], [2, 2]);
    assert.equal(
      (await mcp.call('get_automation_activity', { automation_id: id, status: 'paused' })).error?.code,
      -32602,
    );
  });

  test("not found for another account's id; Forbidden without read", async () => {
    const a = await account();
    const b = await account();
    const mine = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('get_automation_activity', { automation_id: mine.id })).body, {
      error: 'Automation not found',
    });
    const writer = await account(['automations:write']);
    assert.equal(
      (await writer.mcp.call('get_automation_activity', { automation_id: mine.id })).body.error,
      'Forbidden',
    );
  });
});

describe('delete_automation', () => {
  test("deletes; again, or another account's id → not found; Forbidden without write", async () => {
    const a = await account();
    const b = await account();
    const mine = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('delete_automation', { automation_id: mine.id })).body, {
      error: 'Automation not found',
    });
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['automations:read'])).key);
    assert.equal((await reader.call('delete_automation', { automation_id: mine.id })).body.error, 'Forbidden');
    assert.deepEqual((await a.mcp.call('delete_automation', { automation_id: mine.id })).body, {
      success: true,
      data: { id: mine.id, deleted: true },
    });
    assert.deepEqual((await a.mcp.call('delete_automation', { automation_id: mine.id })).body, {
      error: 'Automation not found',
    });
    assert.equal((await a.mcp.call('delete_automation', { automation_id: 'x' })).error?.code, -32602);
  });
});
