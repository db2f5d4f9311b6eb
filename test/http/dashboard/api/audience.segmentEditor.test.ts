// /app/api segments opened, edited and counted before saving, and forms edited: the same domain functions
// as REST (segments.update, segments.countDraft on filter.ts's compiler, forms.update), a viewer may read
// and count but not change, another account's id is a 404, and bad input is a 400 naming its field.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after });
const statusIs = (value: string) => ({ match: 'all', rules: [{ field: 'status', operator: 'eq', value }] });

async function withPeople() {
  const owner = await signedIn(s);
  for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com'])
    await owner.client.post('/subscribers', { email });
  const bob = (await owner.client.get('/subscribers?search=bob')).body.data.subscribers[0];
  await owner.client.post('/subscribers/bulk', { action: 'unsubscribe', ids: [bob.id] });
  return owner;
}

describe('dashboard segment editor', () => {
  test('open, edit (PUT) and count a draft filter with the compiler a saved segment uses', async () => {
    const { client } = await withPeople();
    const seg = (await client.post('/segments', { name: 'Active', filter: statusIs('active') })).body.data;
    const opened = await client.get(`/segments/${seg.id}`);
    assert.equal(opened.status, 200);
    assert.deepEqual([opened.body.data.name, opened.body.data.subscriber_count], ['Active', 2]);

    const draft = await client.post('/segments/count', { filter: statusIs('unsubscribed') });
    assert.deepEqual(draft.body, { success: true, data: { count: 1 } });
    const any = {
      match: 'any',
      rules: [statusIs('unsubscribed').rules[0], { field: 'email', operator: 'starts_with', value: 'ad' }],
    };
    assert.equal((await client.post('/segments/count', { filter: any })).body.data.count, 2);

    const edited = await client.put(`/segments/${seg.id}`, { name: 'Gone', filter: statusIs('unsubscribed') });
    assert.equal(edited.status, 200);
    assert.deepEqual([edited.body.data.name, edited.body.data.subscriber_count], ['Gone', 1]);
    assert.equal((await client.get(`/segments/${seg.id}`)).body.data.filter.rules[0].value, 'unsubscribed');
  });

  test('bad input: an operator the field does not take, no filter, a bad name, NUL → 400 with the field; never 5xx', async () => {
    const { client } = await withPeople();
    const seg = (await client.post('/segments', { name: 'A', filter: statusIs('active') })).body.data;
    const wrongOp = { match: 'all', rules: [{ field: 'email', operator: 'gt', value: 'x' }] };
    const counted = await client.post('/segments/count', { filter: wrongOp });
    assert.equal(counted.status, 400);
    assert.deepEqual(counted.body.data, { 'filter.rules.0.operator': ['Operator gt is not valid for field email'] });
    const put = await client.put(`/segments/${seg.id}`, { filter: wrongOp });
    assert.equal(put.status, 400);
    assert.ok(put.body.data['filter.rules.0.operator'], JSON.stringify(put.body));
    const unknown = await client.post('/segments/count', {
      filter: { match: 'all', rules: [{ field: 'custom_fields.plan', operator: 'eq', value: 'pro' }] },
    });
    assert.deepEqual(unknown.body.data, { 'filter.rules.0.field': ['Unknown custom field: plan'] });
    const none = await client.post('/segments/count', {});
    assert.equal(none.status, 400);
    assert.ok(
      Object.keys(none.body.data).some((k) => k.startsWith('filter')),
      JSON.stringify(none.body),
    );
    assert.equal((await client.post('/segments/count', 'not json at all')).status < 500, true);
    const blank = await client.put(`/segments/${seg.id}`, { name: ' ' });
    assert.deepEqual(blank.body.data, { name: ['Name is required'] });
    const nul = await client.put(`/segments/${seg.id}`, { name: 'a\u0000b' });
    assert.equal(nul.status, 400);
    const nulCount = await client.post('/segments/count', {
      filter: { match: 'all', rules: [{ field: 'email', operator: 'contains', value: 'a\u0000' }] },
    });
    assert.equal(nulCount.status, 400);
    assert.equal(
      (await client.put(`/segments/${seg.id}`, { name: 'A', filter: { match: 'both', rules: [] } })).status,
      400,
    );
  });

  test('a viewer opens and counts but cannot save; another account’s segment is a 404; a duplicate name is a 409', async () => {
    const owner = await withPeople();
    const seg = (await owner.client.post('/segments', { name: 'Mine', filter: statusIs('active') })).body.data;
    await owner.client.post('/segments', { name: 'Other', filter: statusIs('active') });
    assert.equal((await owner.client.put(`/segments/${seg.id}`, { name: 'other' })).status, 409);
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.get(`/segments/${seg.id}`)).status, 200);
    assert.equal((await viewer.client.post('/segments/count', { filter: statusIs('active') })).body.data.count, 2);
    assert.equal((await viewer.client.put(`/segments/${seg.id}`, { name: 'X' })).status, 403);

    const stranger = await signedIn(s);
    assert.equal((await stranger.client.get(`/segments/${seg.id}`)).status, 404);
    assert.equal((await stranger.client.put(`/segments/${seg.id}`, { name: 'Taken' })).status, 404);
    assert.equal((await stranger.client.get('/segments/not-a-uuid')).status, 404);
    assert.equal((await owner.client.get(`/segments/${seg.id}`)).body.data.name, 'Mine');
  });
});

describe('dashboard form editor', () => {
  test('edit name, fields, groups, double opt-in and redirect; deactivate and reactivate; delete', async () => {
    const { client } = await signedIn(s);
    const g1 = (await client.post('/groups', { name: 'One' })).body.data;
    const g2 = (await client.post('/groups', { name: 'Two' })).body.data;
    const form = (await client.post('/forms', { name: 'Signup', group_ids: [g1.id] })).body.data;
    const edited = await client.put(`/forms/${form.id}`, {
      name: 'Newsletter',
      group_ids: [g2.id],
      double_opt_in: true,
      fields: [{ key: 'email' }, { key: 'first_name', required: true }],
      redirect_url: 'https://example.com/thanks',
    });
    assert.equal(edited.status, 200);
    const f = edited.body.data;
    assert.deepEqual(
      [f.name, f.group_ids, f.double_opt_in, f.redirect_url],
      ['Newsletter', [g2.id], true, 'https://example.com/thanks'],
    );
    assert.deepEqual(
      f.fields.map((x: any) => [x.key, x.required]),
      [
        ['email', true],
        ['first_name', true],
      ],
    );
    assert.match(f.embed, /first_name/);
    assert.ok(f.url.endsWith(`/f/${form.id}`));

    assert.equal((await client.put(`/forms/${form.id}`, { active: false })).body.data.active, false);
    assert.equal((await fetch(`${s.url}/f/${form.id}`)).status, 404, 'an inactive form is offline');
    assert.equal((await client.put(`/forms/${form.id}`, { active: true })).body.data.active, true);
    assert.equal((await fetch(`${s.url}/f/${form.id}`)).status, 200);
    assert.equal((await client.delete(`/forms/${form.id}`)).status, 200);
    assert.equal((await client.get(`/forms/${form.id}`)).status, 404);
  });

  test('bad input → 400 on its field, NUL → 400; a viewer cannot edit; another account’s form is a 404', async () => {
    const owner = await signedIn(s);
    const form = (await owner.client.post('/forms', { name: 'Signup' })).body.data;
    const put = (body: unknown) => owner.client.put(`/forms/${form.id}`, body);
    assert.deepEqual((await put({ redirect_url: 'javascript:alert(1)' })).body.data, {
      redirect_url: ['redirect_url must be an absolute http(s) URL'],
    });
    assert.equal((await put({ name: '' })).status, 400);
    assert.equal((await put({ active: 'yes' })).status, 400);
    const badGroup = await put({ group_ids: ['00000000-0000-4000-8000-000000000000'] });
    assert.equal(badGroup.status, 400);
    assert.ok(badGroup.body.data.group_ids, JSON.stringify(badGroup.body));
    const badField = await put({ fields: [{ key: 'company' }] });
    assert.equal(badField.status, 400);
    assert.equal((await put({ success_message: 'ok\u0000' })).status, 400);
    assert.equal((await owner.client.get(`/forms/${form.id}`)).body.data.name, 'Signup', 'nothing changed');

    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.put(`/forms/${form.id}`, { active: false })).status, 403);
    assert.equal((await viewer.client.delete(`/forms/${form.id}`)).status, 403);
    const stranger = await signedIn(s);
    assert.equal((await stranger.client.put(`/forms/${form.id}`, { active: false })).status, 404);
    assert.equal((await stranger.client.delete(`/forms/${form.id}`)).status, 404);
    assert.equal((await owner.client.get(`/forms/${form.id}`)).body.data.active, true);
  });
});
