// Typed tool results through the official SDK Client: after listTools the Client compiles every tool's
// outputSchema and, on each callTool, requires structuredContent and validates it (ajv) or throws McpError.
// One scenario calls all 44 tools successfully on real data (a sent campaign, an automation run, a webhook
// delivery, a form signup, an import with a failed row), so each outputSchema meets what its tool answers.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { waitForCampaign } from '../../support/campaigns.ts';
import { client, restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after }, { WORKER_POLL_MS: 100, ALLOW_PRIVATE_WEBHOOK_URLS: true });

async function connect(key: string, fetchImpl?: typeof fetch) {
  const c = new Client({ name: 'mailgrove-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    ...(fetchImpl && { fetch: fetchImpl }),
  });
  await c.connect(transport);
  after(() => c.close());
  return c;
}

async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`${what} did not happen in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('outputSchema and structuredContent through the SDK Client', () => {
  test('every one of the 44 tools answers structuredContent that the SDK validates against its outputSchema', async () => {
    // a webhook receiver on loopback, so that get_webhook shows a delivery with an attempt
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    after(() => receiver.close());
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const { key } = await s.newAccount({ scopes: ['*'] });
    const api = restClient(s.url, key);
    const mcp = await connect(key);
    const { tools } = await mcp.listTools(); // the Client compiles the output validators here
    assert.equal(tools.length, 44);
    for (const t of tools) assert.equal(t.outputSchema?.type, 'object', t.name);

    const called = new Set<string>();
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const r = await mcp.callTool({ name, arguments: args }); // throws McpError when the content does not validate
      assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
      const text = JSON.parse((r.content as { text: string }[])[0]!.text);
      assert.deepEqual(r.structuredContent, text, `${name}: structuredContent is the text's object`);
      assert.equal(text.success, true);
      called.add(name);
      return text as { success: true; data: any; meta?: any };
    };

    // set-up the tools act on: a webhook and an automation first, so the subscriber created next feeds both
    const hook = (await call('create_webhook', { name: 'CRM', url: hookUrl, events: ['subscriber.created'] })).data;
    const automation = (
      await call('create_automation', {
        name: 'Tag MCP signups',
        trigger: { type: 'subscriber_created', source: 'mcp' },
        steps: [{ type: 'update_field', field: 'last_name', value: 'From MCP' }],
      })
    ).data;
    const group = (await call('create_group', { name: 'Readers' })).data;
    await call('update_group', { group_id: group.id, name: 'Readers 2' });
    const other = (await call('create_group', { name: 'Other' })).data;
    const ada = (await call('add_subscriber', { email: 'ada@example.com', first_name: 'Ada', groups: [group.id] }))
      .data;
    assert.equal(ada.created, true);
    await call('update_subscriber', { subscriber_id: ada.id, phone: '+441234567' });
    const full = (await call('get_subscriber', { subscriber_id: ada.id })).data;
    assert.deepEqual(full.groups, [{ id: group.id, name: 'Readers 2' }]);
    await call('list_subscribers', { per_page: 5 });
    await call('get_subscriber_count');
    assert.deepEqual((await call('get_subscriber_count', { status: 'active' })).data, { status: 'active', count: 1 });
    assert.ok((await call('get_subscriber_activity', { subscriber_id: ada.id })).data.length > 0);
    assert.equal(
      (await call('assign_subscriber_to_group', { subscriber_id: ada.id, group_id: other.id })).data.added,
      true,
    );
    await call('unassign_subscriber_from_group', { subscriber_id: ada.id, group_id: other.id });
    await call('list_groups');
    await call('get_group_subscribers', { group_id: group.id });

    // an import with one bad row: the job's errors list is filled
    const job = (
      await call('import_subscribers_to_group', {
        group_id: group.id,
        subscribers: [{ email: 'bob@example.com', first_name: 'Bob' }, { email: 'not an address' }],
      })
    ).data;
    const finished = await eventually(
      () => call('get_single_import', { import_id: job.job_id }),
      (r) => r.data.status !== 'processing',
      'the import',
    );
    assert.equal(finished.data.failed_count, 1);
    assert.equal(finished.data.errors.length, 1);

    // segments and forms are created through REST
    const seg = await api.post('/segments', {
      name: 'Active',
      filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] },
    });
    assert.equal(seg.status, 201, JSON.stringify(seg.body));
    await call('list_segments');
    assert.equal((await call('get_subscribers_in_segment', { segment_id: seg.body.data.id })).meta.total, 2);
    await call('update_segment', { segment_id: seg.body.data.id, name: 'Active readers' });
    const form = await api.post('/forms', { name: 'Newsletter', group_ids: [group.id], double_opt_in: false });
    assert.equal(form.status, 201, JSON.stringify(form.body));
    const signup = await client(s.url).post(
      `/f/${form.body.data.id}`,
      { email: 'cy@example.com' },
      { accept: 'application/json' },
    );
    assert.ok(signup.status < 300, JSON.stringify(signup.body));
    await call('list_forms');
    await call('get_form', { form_id: form.body.data.id });
    assert.equal((await call('get_form_subscribers', { form_id: form.body.data.id })).data.length, 1);
    await call('update_form', { form_id: form.body.data.id, success_message: 'Welcome!' });

    // a campaign scheduled, cancelled back to a draft, then sent (to the outbox)
    const campaign = (
      await call('create_campaign', {
        name: 'Spring',
        subject: 'Hi {{ subscriber.first_name }}',
        content_html: '<p>Hello</p>',
        group_ids: [group.id],
      })
    ).data;
    await call('update_campaign', { campaign_id: campaign.id, preview_text: 'News' });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal(
      (await call('schedule_campaign', { campaign_id: campaign.id, delivery: 'scheduled', scheduled_at: at })).data
        .status,
      'scheduled',
    );
    assert.equal((await call('cancel_campaign', { campaign_id: campaign.id })).data.status, 'draft');
    await call('schedule_campaign', { campaign_id: campaign.id, delivery: 'instant' });
    await waitForCampaign(api, campaign.id, (c) => c.status === 'sent');
    const sent = (await call('get_campaign', { campaign_id: campaign.id })).data;
    assert.equal(sent.stats.sent, 3);
    await call('list_campaigns');
    const recipients = await call('get_campaign_subscribers', { campaign_id: campaign.id });
    assert.equal(recipients.data.length, 3);
    assert.ok(recipients.data[0].sent_at);
    const spare = (await call('create_campaign', { name: 'Spare' })).data;
    await call('delete_campaign', { campaign_id: spare.id });

    // what the workers did meanwhile: the automation's runs and the webhook's deliveries
    const runs = await eventually(
      () => call('get_automation_activity', { automation_id: automation.id }),
      (r) => r.data.some((run: any) => run.status === 'completed'),
      'an automation run',
    );
    assert.ok(runs.data[0].history.length > 0);
    await call('list_automations');
    await call('get_automation', { automation_id: automation.id });
    const detail = await eventually(
      () => call('get_webhook', { webhook_id: hook.id }),
      (r) => r.data.recent_deliveries.some((d: any) => d.attempts.length > 0),
      'a webhook delivery',
    );
    assert.equal(detail.data.recent_deliveries[0].payload.event_type, 'subscriber.created');
    await call('list_webhooks');
    await call('update_webhook', { webhook_id: hook.id, name: 'CRM 2' });

    // and the deletions
    const bob = (await call('get_subscriber', { email: 'bob@example.com' })).data;
    await call('delete_subscriber', { subscriber_id: bob.id });
    assert.deepEqual((await call('forget_subscriber', { subscriber_id: ada.id })).data, {
      id: ada.id,
      forgotten: true,
    });
    await call('delete_segment', { segment_id: seg.body.data.id });
    await call('delete_form', { form_id: form.body.data.id });
    await call('delete_group', { group_id: other.id });
    await call('delete_automation', { automation_id: automation.id });
    await call('delete_webhook', { webhook_id: hook.id });

    assert.deepEqual([...called].sort(), tools.map((t) => t.name).sort());
  });

  test('the Client really validates: an answer whose structuredContent breaks the schema is refused', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    // the server's answer with the group's id taken out of structuredContent (the text is left alone)
    const tampering: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = init?.body;
      if (typeof body !== 'string' || !body.includes('"tools/call"')) return res;
      const answer = (await res.json()) as { result?: { structuredContent?: { data?: Record<string, unknown> } } };
      if (answer.result?.structuredContent?.data) delete answer.result.structuredContent.data.id;
      return new Response(JSON.stringify(answer), { status: res.status, headers: res.headers });
    };
    const mcp = await connect(key, tampering);
    await mcp.listTools();
    await assert.rejects(mcp.callTool({ name: 'create_group', arguments: { name: 'Tampered' } }), (err: unknown) => {
      assert.ok(err instanceof McpError);
      assert.match(err.message, /Structured content does not match the tool's output schema/);
      assert.match(err.message, /id/);
      return true;
    });
  });

  test('a tool error stays a text with isError and no structuredContent, which the Client accepts', async () => {
    const { key } = await s.newAccount({ scopes: ['*'] });
    const mcp = await connect(key);
    await mcp.listTools();
    const r = await mcp.callTool({
      name: 'get_group_subscribers',
      arguments: { group_id: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent, undefined);
    assert.deepEqual(JSON.parse((r.content as { text: string }[])[0]!.text), { error: 'Group not found' });
  });
});
