// /api/v1/external/automations (our addition): CRUD, enable/disable, activity; scopes automations:read /
// automations:write; the same rules as the MCP tools because both call src/domain/automations.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope);

const account = (scopes = ['*']) => s.restAccount({ scopes });
const body = {
  name: 'Tag',
  trigger: { type: 'subscriber_created' },
  steps: [{ type: 'update_field', field: 'first_name', value: 'New' }],
};

describe('REST automations', () => {
  test('POST 201, GET, PUT name, list with pagination, DELETE', async () => {
    const { api } = await account();
    const created = await api.post('/automations', body);
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal((await api.get(`/automations/${id}`)).body.data.name, 'Tag');
    assert.equal((await api.put(`/automations/${id}`, { name: 'Renamed' })).body.data.name, 'Renamed');
    const list = await api.get('/automations');
    assert.deepEqual(list.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 });
    assert.deepEqual(await api.delete(`/automations/${id}`).then((r) => r.body), {
      success: true,
      message: 'Automation deleted',
      data: { id, deleted: true },
    });
    assert.equal((await api.get(`/automations/${id}`)).status, 404);
  });

  test('409 when changing steps of an enabled automation; allowed while disabled or together with disabling', async () => {
    const { api } = await account();
    const id = (await api.post('/automations', body)).body.data.id;
    const steps = [{ type: 'update_field', field: 'last_name', value: 'X' }];
    const refused = await api.put(`/automations/${id}`, { steps });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'Disable the automation before changing its trigger or steps');
    const ok = await api.put(`/automations/${id}`, { steps, enabled: false });
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.data.enabled, ok.body.data.steps[0].field], [false, 'last_name']);
    assert.equal((await api.post(`/automations/${id}/enable`)).body.data.enabled, true);
  });

  test("400 with the field map; 404 for another account's id; 403 without the scope", async () => {
    const a = await account();
    const bad = await a.api.post('/automations', {
      name: '',
      trigger: { type: 'joined_group' },
      steps: [{ type: 'delay', amount: 1.5, unit: 'days' }],
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.data).sort(), ['name', 'steps.0.amount', 'trigger.group_id']);
    const group = (await a.api.post('/groups', { name: 'Loop' })).body.data;
    const loop = await a.api.post('/automations', {
      name: 'loop',
      trigger: { type: 'joined_group', group_id: group.id },
      steps: [
        { type: 'remove_from_group', group_id: group.id },
        { type: 'add_to_group', group_id: group.id },
      ],
    });
    assert.deepEqual(loop.body.data, {
      'steps.1.group_id': ['A step may not add to the group that triggers this automation'],
    });
    const id = (await a.api.post('/automations', body)).body.data.id;
    const b = await account();
    for (const res of [
      await b.api.get(`/automations/${id}`),
      await b.api.post(`/automations/${id}/disable`),
      await b.api.get(`/automations/${id}/activity`),
      await b.api.delete(`/automations/${id}`),
    ])
      assert.deepEqual([res.status, res.body.error], [404, 'Automation not found']);
    const reader = await account(['automations:read']);
    assert.equal((await reader.api.post('/automations', body)).status, 403);
    assert.equal((await reader.api.get('/automations')).status, 200);
    assert.equal((await a.api.get(`/automations/${id}/activity?status=paused`)).status, 400);
  });
});
