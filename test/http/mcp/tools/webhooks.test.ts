// The webhook tools (spec scopes webhooks:read / webhooks:write; "Webhook", "Tool conventions"):
// happy path, not found, validation, Forbidden, and another account's id → not found, for each tool.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { mcpAccount, mcpClient } from '../client.ts';

const s = await startServer(fileScope, { ALLOW_PRIVATE_WEBHOOK_URLS: true });
const URL_ = 'http://127.0.0.1:9/hook'; // never delivered to in these tests: no events are subscribed here

const account = (scopes = ['*']) => mcpAccount(s, { scopes });

async function createOne(mcp: ReturnType<typeof mcpClient>, args: Record<string, unknown> = {}) {
  const r = await mcp.call('create_webhook', {
    name: 'CRM',
    url: URL_,
    events: ['subscriber.created', 'subscriber.updated'],
    ...args,
  });
  assert.equal(r.isError, false, JSON.stringify(r.body ?? r.error));
  return r.body.data;
}

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('create_webhook', () => {
  test('creates an enabled webhook with a whsec_ secret, events de-duplicated', async () => {
    const { mcp } = await account();
    const hook = await createOne(mcp, { events: ['subscriber.created', 'subscriber.created', 'email.opened'] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(hook.events, ['subscriber.created', 'email.opened']);
    assert.equal(hook.enabled, true);
    assert.equal(hook.name, 'CRM');
    assert.equal(hook.last_delivery, null);
    const unnamed = await createOne(mcp, { name: undefined });
    assert.equal(unnamed.name, '127.0.0.1:9', 'the name defaults to the URL host');
  });

  test('-32602 for an unknown event type, no events, a missing url', async () => {
    const { mcp } = await account();
    const bad = await mcp.call('create_webhook', { url: URL_, events: ['subscriber.exploded'] });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /^events\.0: Each event must be one of: subscriber\.created/);
    assert.equal(
      (await mcp.call('create_webhook', { url: URL_, events: [] })).error?.message,
      'events: At least one event is required',
    );
    assert.equal((await mcp.call('create_webhook', { events: ['*'] })).error?.message, 'url: url is required');
  });

  test('a URL that is not http(s) is a tool error with the field', async () => {
    const { mcp } = await account();
    const r = await mcp.call('create_webhook', { url: 'ftp://example.com/x', events: ['*'] });
    assert.equal(r.isError, true);
    assert.deepEqual(r.body, { error: 'URL must use http or https', data: { url: ['URL must use http or https'] } });
  });

  test('Forbidden without webhooks:write (webhooks:read is not enough)', async () => {
    const { mcp } = await account(['webhooks:read']);
    const r = await mcp.call('create_webhook', { url: URL_, events: ['*'] });
    assert.deepEqual(r.body, { error: 'Forbidden', message: 'API key lacks the required permission: webhooks:write' });
  });
});

describe('get_webhook', () => {
  test('returns the webhook with its secret and recent deliveries', async () => {
    const { mcp } = await account(['webhooks:*']);
    const hook = await createOne(mcp);
    const r = await mcp.call('get_webhook', { webhook_id: hook.id });
    assert.equal(r.body.success, true);
    assert.equal(r.body.data.secret, hook.secret);
    assert.deepEqual(r.body.data.recent_deliveries, []);
    assert.equal(r.body.data.url, URL_);
  });

  test('"Webhook not found" for a missing id and for another account\'s id; -32602 for a non-UUID', async () => {
    const a = await account();
    const b = await account();
    const hook = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('get_webhook', { webhook_id: hook.id })).body, { error: 'Webhook not found' });
    assert.deepEqual((await a.mcp.call('get_webhook', { webhook_id: MISSING })).body, { error: 'Webhook not found' });
    assert.equal((await a.mcp.call('get_webhook', { webhook_id: 'nope' })).error?.code, -32602);
  });

  test('Forbidden without webhooks:read', async () => {
    const { mcp } = await account(['subscribers:*']);
    assert.equal(
      (await mcp.call('get_webhook', { webhook_id: MISSING })).body.message,
      'API key lacks the required permission: webhooks:read',
    );
  });
});

describe('list_webhooks', () => {
  test("lists only this account's webhooks, newest first, without secrets, with paging meta", async () => {
    const a = await account(['webhooks:read', 'webhooks:write']);
    const b = await account();
    await createOne(b.mcp, { name: 'theirs' });
    for (const name of ['one', 'two', 'three']) await createOne(a.mcp, { name });
    const page1 = await a.mcp.call('list_webhooks', { per_page: 2 });
    assert.deepEqual(page1.body.meta, { current_page: 1, last_page: 2, per_page: 2, total: 3 });
    assert.deepEqual(
      page1.body.data.map((w: any) => w.name),
      ['three', 'two'],
    );
    assert.equal('secret' in page1.body.data[0], false);
    const page2 = await a.mcp.call('list_webhooks', { page: 2, per_page: 500 });
    assert.deepEqual(page2.body.meta, { current_page: 2, last_page: 1, per_page: 100, total: 3 });
    assert.deepEqual(page2.body.data, []);
    assert.equal((await a.mcp.call('list_webhooks', { page: 0 })).error?.code, -32602);
  });

  test('Forbidden without webhooks:read', async () => {
    const { mcp } = await account(['webhooks:write']);
    assert.equal((await mcp.call('list_webhooks', {})).body.error, 'Forbidden');
  });
});

describe('update_webhook', () => {
  test('changes only the given fields; the secret stays', async () => {
    const { mcp } = await account();
    const hook = await createOne(mcp);
    const r = await mcp.call('update_webhook', { webhook_id: hook.id, events: ['*'], enabled: false });
    assert.equal(r.body.data.enabled, false);
    assert.deepEqual(r.body.data.events, ['*']);
    assert.equal(r.body.data.name, 'CRM');
    assert.equal(r.body.data.url, URL_);
    assert.equal((await mcp.call('get_webhook', { webhook_id: hook.id })).body.data.secret, hook.secret);
  });

  test("not found for another account's id; -32602 for a bad event; Forbidden without write", async () => {
    const a = await account();
    const b = await account();
    const hook = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('update_webhook', { webhook_id: hook.id, name: 'x' })).body, {
      error: 'Webhook not found',
    });
    assert.equal((await a.mcp.call('update_webhook', { webhook_id: hook.id, events: ['nope'] })).error?.code, -32602);
    assert.equal((await a.mcp.call('update_webhook', { webhook_id: hook.id, enabled: 'yes' })).error?.code, -32602);
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['webhooks:read'])).key);
    assert.equal((await reader.call('update_webhook', { webhook_id: hook.id, name: 'x' })).body.error, 'Forbidden');
    assert.equal((await a.mcp.call('get_webhook', { webhook_id: hook.id })).body.data.name, 'CRM', 'nothing changed');
  });
});

describe('delete_webhook', () => {
  test("deletes; a second delete and another account's id are not found; Forbidden without write", async () => {
    const a = await account();
    const b = await account();
    const hook = await createOne(a.mcp);
    assert.deepEqual((await b.mcp.call('delete_webhook', { webhook_id: hook.id })).body, {
      error: 'Webhook not found',
    });
    const reader = mcpClient(s.url, (await s.newKey(a.accountId, ['webhooks:read'])).key);
    assert.equal((await reader.call('delete_webhook', { webhook_id: hook.id })).body.error, 'Forbidden');
    const r = await a.mcp.call('delete_webhook', { webhook_id: hook.id });
    assert.deepEqual(r.body, { success: true, data: { id: hook.id, deleted: true } });
    assert.deepEqual((await a.mcp.call('delete_webhook', { webhook_id: hook.id })).body, {
      error: 'Webhook not found',
    });
    assert.deepEqual((await a.mcp.call('get_webhook', { webhook_id: hook.id })).body, { error: 'Webhook not found' });
  });
});
