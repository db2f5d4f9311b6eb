// The checks before a send through MCP: get_campaign's result carries them, schedule_campaign's tool
// error lists the failed ones (SEND_CHECKS=block), and the tool count stays at 44.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedAudience } from '../../../support/campaigns.ts';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { mcpAccount } from '../client.ts';

const s = await startServer(fileScope, { SEND_CHECKS: 'block', PUBLIC_URL: 'https://mail.example.com' });

async function ready() {
  const a = await mcpAccount(s);
  const { groupId } = await seedAudience(s.db, a.accountId, 2, { domain: 'checks-mcp.com' });
  const r = await a.mcp.call('create_campaign', {
    name: 'News',
    subject: 'Winter news',
    from_email: 'news@acme.example.com',
    content_html: '<p>Hello {{ subscriber.first_name }}, the winter collection is in the shop from Monday on.</p>',
    group_ids: [groupId],
  });
  assert.equal(r.isError, false, JSON.stringify(r.body));
  return { ...a, id: r.body.data.id as string };
}

describe('MCP and the checks before a send', () => {
  test('get_campaign carries checks {ok, checks: [{id, level, ok, message}]}', async () => {
    const { mcp, id } = await ready();
    const r = await mcp.call('get_campaign', { campaign_id: id });
    assert.equal(r.isError, false);
    const { checks } = r.body.data;
    assert.equal(checks.ok, false);
    const postal = checks.checks.find((c: any) => c.id === 'postal_address');
    assert.deepEqual([postal.ok, postal.level], [false, 'block']);
    assert.match(postal.message, /postal address/);
    assert.equal(checks.checks.length, 10);
  });

  test('schedule_campaign: a tool error naming the failed blocking checks, with data.checks; the draft stays', async () => {
    const { mcp, api, id } = await ready();
    await api.put('/account', { postal_address: '1 Main Street, Springfield' });
    const r = await mcp.call('schedule_campaign', { campaign_id: id, delivery: 'instant' });
    assert.equal(r.isError, true);
    assert.equal(r.body.error, 'Campaign failed the checks before sending: from_domain');
    assert.ok(r.body.data.checks.some((c: any) => c.id === 'from_domain' && c.level === 'block' && !c.ok));
    assert.ok(r.body.data.checks.every((c: any) => !c.ok));
    assert.equal((await mcp.call('get_campaign', { campaign_id: id })).body.data.status, 'draft');
  });

  test('still exactly 44 tools', async () => {
    const { mcp } = await mcpAccount(s);
    assert.equal((await mcp.listNames()).length, 44);
  });
});
