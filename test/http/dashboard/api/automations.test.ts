// /app/api/automations: the builder's create/edit/enable through the same domain as REST, field errors by
// path (an unknown or another account's group, an invalid step), another account's automation → 404, a
// viewer reads but does not change, and a run's activity and per-step email stats after a real trigger.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { until } from '../../../support/until.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after });

const welcome = { type: 'send_email', subject: 'Welcome {{ subscriber.first_name }}', content_html: '<p>Hi</p>' };

describe('dashboard automations', () => {
  test('create, list newest first, get, edit while off, enable; editing steps while on → 409', async () => {
    const { client } = await signedIn(s);
    const group = (await client.post('/groups', { name: 'Leads' })).body.data;
    const form = (await client.post('/forms', { name: 'Signup' })).body.data;
    const first = await client.post('/automations', {
      name: 'Form welcome',
      enabled: false,
      trigger: { type: 'form_submitted', form_id: form.id },
      steps: [welcome],
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.enabled, false);
    const second = await client.post('/automations', {
      name: 'Group series',
      trigger: { type: 'joined_group', group_id: group.id },
      steps: [
        { type: 'delay', amount: 2, unit: 'days' },
        {
          type: 'condition',
          filter: { match: 'all', rules: [{ field: 'first_name', operator: 'is_set' }] },
          then: [welcome],
          else: [{ type: 'update_field', field: 'first_name', value: 'Friend' }],
        },
      ],
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const list = await client.get('/automations');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.automations.map((a: any) => a.name),
      ['Group series', 'Form welcome'],
    );
    assert.equal(list.body.data.pagination.total_count, 2);
    assert.equal(list.body.data.automations[0].stats.emails_sent, 0);

    const id = first.body.data.id;
    const edited = await client.put(`/automations/${id}`, {
      name: 'Form welcome v2',
      steps: [{ type: 'delay', amount: 5, unit: 'minutes' }, welcome],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.data.steps.length, 2);
    assert.equal((await client.post(`/automations/${id}/enable`)).body.data.enabled, true);
    const locked = await client.put(`/automations/${id}`, { steps: [welcome] });
    assert.equal(locked.status, 409);
    assert.equal((await client.put(`/automations/${id}`, { name: 'Renamed while on' })).status, 200);
    assert.equal((await client.post(`/automations/${id}/disable`)).body.data.enabled, false);

    const emails = await client.get(`/automations/${second.body.data.id}/emails`);
    assert.deepEqual(emails.body.data.steps, [
      {
        path: '1.then.0',
        subject: welcome.subject,
        sent: 0,
        failed: 0,
        opens: 0,
        unique_opens: 0,
        clicks: 0,
        unique_clicks: 0,
        unsubscribes: 0,
        bounces: 0,
        complaints: 0,
        soft_bounces: 0,
      },
    ]);
    assert.equal((await client.delete(`/automations/${id}`)).status, 200);
    assert.equal((await client.get(`/automations/${id}`)).status, 404);
  });

  test('bad input: field errors by path, unknown and foreign ids, another account → 404, viewer → 403', async () => {
    const owner = await signedIn(s);
    const other = await signedIn(s);
    const theirGroup = (await other.client.post('/groups', { name: 'Theirs' })).body.data;
    const theirs = (
      await other.client.post('/automations', {
        name: 'Theirs',
        trigger: { type: 'joined_group', group_id: theirGroup.id },
        steps: [welcome],
      })
    ).body.data;

    const foreignGroup = await owner.client.post('/automations', {
      name: 'X',
      trigger: { type: 'joined_group', group_id: theirGroup.id },
      steps: [{ type: 'add_to_group', group_id: '00000000-0000-4000-8000-000000000000' }],
    });
    assert.equal(foreignGroup.status, 400);
    assert.deepEqual(foreignGroup.body.data, {
      'trigger.group_id': ['Group not found'],
      'steps.0.group_id': ['Group not found'],
    });

    const badStep = await owner.client.post('/automations', {
      name: 'X',
      trigger: { type: 'subscriber_created' },
      steps: [
        { type: 'send_email', subject: ' ', content_html: '<p>x</p>' },
        { type: 'delay', amount: 1, unit: 'weeks' },
      ],
    });
    assert.equal(badStep.status, 400);
    assert.deepEqual(badStep.body.data['steps.0.subject'], ['subject is required']);
    assert.match(badStep.body.data['steps.1.unit'][0], /minutes, hours, days/);

    const badTemplate = await owner.client.post('/automations', {
      name: 'X',
      trigger: { type: 'subscriber_created' },
      steps: [
        {
          type: 'condition',
          filter: { match: 'all', rules: [{ field: 'first_name', operator: 'is_set' }] },
          then: [{ ...welcome, subject: '{% nope %}' }],
        },
      ],
    });
    assert.equal(badTemplate.status, 400, JSON.stringify(badTemplate.body));
    assert.match(badTemplate.body.data['steps.0.then.0.subject'][0], /nope/);
    const noRules = await owner.client.post('/automations', {
      name: 'X',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'condition', filter: { match: 'all', rules: [] } }],
    });
    assert.deepEqual(noRules.body.data, { 'steps.0.filter.rules': ['At least one rule is required'] });

    for (const body of [null, [], 'x', { name: '', trigger: { type: 'nope' }, steps: [] }]) {
      const r = await owner.client.raw('POST', '/app/api/automations', body === null ? 'null' : body, {
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    assert.equal((await owner.client.get('/automations?page=0')).status, 400);
    assert.equal((await owner.client.get('/automations/not-a-uuid')).status, 404);

    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/enable'],
      ['POST', '/disable'],
      ['GET', '/activity'],
      ['GET', '/emails'],
    ] as const) {
      const r = await owner.client.raw(
        method,
        `/app/api/automations/${theirs.id}${path}`,
        method === 'PUT' ? {} : undefined,
      );
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.message ?? r.body.error, 'Automation not found');
    }
    assert.equal((await other.client.get(`/automations/${theirs.id}`)).body.data.enabled, true, 'left as it was');

    const viewer = await signedIn(s, 'viewer', other.accountId);
    assert.equal((await viewer.client.get(`/automations/${theirs.id}`)).status, 200);
    assert.equal((await viewer.client.get(`/automations/${theirs.id}/activity`)).status, 200);
    assert.equal((await viewer.client.post(`/automations/${theirs.id}/disable`)).status, 403);
    assert.equal((await viewer.client.delete(`/automations/${theirs.id}`)).status, 403);
    assert.equal(
      (
        await viewer.client.post('/automations', {
          name: 'V',
          trigger: { type: 'subscriber_created' },
          steps: [welcome],
        })
      ).status,
      403,
    );
  });

  test('a subscriber joining the group shows as a run in the activity and as a sent email of its step', async () => {
    const { client } = await signedIn(s);
    const group = (await client.post('/groups', { name: 'Members' })).body.data;
    const a = (
      await client.post('/automations', {
        name: 'Join welcome',
        trigger: { type: 'joined_group', group_id: group.id },
        steps: [welcome],
      })
    ).body.data;
    const sub = (await client.post('/subscribers', { email: 'runner@example.com', first_name: 'Ada' })).body.data;
    await client.post('/subscribers/bulk', { action: 'add_to_group', group_id: group.id, ids: [sub.id] });

    const runs = await until('the run to complete', async () => {
      const r = await client.get(`/automations/${a.id}/activity?status=completed`);
      // the page and its total are two statements: the run may complete between them
      return r.body.data.pagination.total_count === 1 && r.body.data.runs.length === 1 && r.body.data.runs;
    });
    assert.equal(runs[0].subscriber.email, 'runner@example.com');
    assert.equal(runs[0].status, 'completed');
    const emails = (await client.get(`/automations/${a.id}/emails`)).body.data.steps;
    assert.deepEqual(
      emails.map((e: any) => [e.path, e.sent]),
      [['0', 1]],
    );
    assert.equal((await client.get(`/automations/${a.id}/activity?status=bogus`)).status, 400);
    const listed = (await client.get('/automations')).body.data.automations[0];
    assert.equal(listed.stats.emails_sent, 1);
    assert.equal(listed.stats.completed, 1);
  });
});
