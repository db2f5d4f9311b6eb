// One wire shape per kind of answer on /app/api: every list is `{ <plural>: [...], pagination }` with the
// spec's pagination object, every delete `{ id, deleted: true }` with a line naming what went. The
// dashboard's data layer (web/src/api/) reads lists and deletes this one way.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../support/server.ts';
import { signedIn } from './session.ts';

const s = await startServer({ after }, { ALLOW_PRIVATE_WEBHOOK_URLS: true });
const PAGINATION = ['current_page', 'per_page', 'total_count', 'total_pages'];

describe('dashboard wire shapes', () => {
  test('every list answers its items under their plural name and the pagination object', async () => {
    const { client } = await signedIn(s);
    const sub = (await client.post('/subscribers', { email: 'shape@example.com' })).body.data;
    const campaign = (await client.post('/campaigns', { name: 'C' })).body.data;
    const automation = (
      await client.post('/automations', {
        name: 'A',
        enabled: false,
        trigger: { type: 'subscriber_created' },
        steps: [{ type: 'delay', amount: 1, unit: 'days' }],
      })
    ).body.data;
    const hook = (await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['subscriber.created'] }))
      .body.data;

    const lists: [path: string, items: string][] = [
      ['/subscribers', 'subscribers'],
      [`/subscribers/${sub.id}/activity`, 'activity'],
      ['/groups', 'groups'],
      ['/segments', 'segments'],
      ['/forms', 'forms'],
      ['/fields', 'fields'],
      ['/suppressions', 'suppressions'],
      ['/imports', 'imports'],
      ['/campaigns', 'campaigns'],
      ['/campaign-templates', 'templates'],
      [`/campaigns/${campaign.id}/recipients`, 'recipients'],
      [`/campaigns/${campaign.id}/providers`, 'providers'],
      ['/automations', 'automations'],
      [`/automations/${automation.id}/activity`, 'runs'],
      [`/automations/${automation.id}/emails`, 'steps'],
      ['/webhooks', 'webhooks'],
      ['/webhook-events', 'events'],
      [`/webhooks/${hook.id}/deliveries`, 'deliveries'],
      ['/outbox', 'messages'],
      ['/keys', 'keys'],
      ['/members', 'members'],
      ['/warmup', 'plans'],
    ];
    for (const [path, items] of lists) {
      const r = await client.get(path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, true, path);
      assert.ok(Array.isArray(r.body.data[items]), `${path} lists ${items}`);
      assert.deepEqual(Object.keys(r.body.data.pagination).sort(), PAGINATION, path);
      assert.equal(r.body.data.pagination.total_count, r.body.data[items].length, path);
    }
  });

  test('every delete answers { id, deleted: true } and says what went', async () => {
    const owner = await signedIn(s);
    const { client } = owner;
    const member = await signedIn(s, 'viewer', owner.accountId);
    const made = {
      subscribers: (await client.post('/subscribers', { email: 'gone@example.com' })).body.data.id,
      groups: (await client.post('/groups', { name: 'G' })).body.data.id,
      segments: (
        await client.post('/segments', {
          name: 'S',
          filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] },
        })
      ).body.data.id,
      forms: (await client.post('/forms', { name: 'F', type: 'hosted', fields: [{ key: 'email', required: true }] }))
        .body.data.id,
      fields: (await client.post('/fields', { key: 'town', name: 'Town', type: 'text' })).body.data.id,
      suppressions: (await client.post('/suppressions', { email: 'never@example.com' })).body.data.id,
      campaigns: (await client.post('/campaigns', { name: 'C' })).body.data.id,
      automations: (
        await client.post('/automations', {
          name: 'A',
          enabled: false,
          trigger: { type: 'subscriber_created' },
          steps: [{ type: 'delay', amount: 1, unit: 'days' }],
        })
      ).body.data.id,
      webhooks: (await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['subscriber.created'] }))
        .body.data.id,
      keys: (await client.post('/keys', { name: 'K', scopes: ['*'] })).body.data.id,
      warmup: (await client.post('/warmup', { domain: 'shape.example' })).body.data.id,
      members: member.userId,
    };
    const said: Record<keyof typeof made, string> = {
      subscribers: 'Subscriber deleted',
      groups: 'Group deleted',
      segments: 'Segment deleted',
      forms: 'Form deleted',
      fields: 'Field deleted',
      suppressions: 'Suppression removed',
      campaigns: 'Campaign deleted',
      automations: 'Automation deleted',
      webhooks: 'Webhook deleted',
      keys: 'API key revoked',
      warmup: 'Warm-up plan deleted',
      members: 'Member removed',
    };
    for (const [path, id] of Object.entries(made) as [keyof typeof made, string][]) {
      assert.ok(id, `${path} was created`);
      const r = await client.delete(`/${path}/${id}`);
      assert.deepEqual(r.body, { success: true, message: said[path], data: { id, deleted: true } }, path);
    }
  });
});
