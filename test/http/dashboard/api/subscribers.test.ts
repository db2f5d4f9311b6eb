// /app/api subscribers (edit, delete, activity, list by segment with source), custom fields and the import's
// column preview: the same domain functions as REST, field errors as 400 with the field named, nothing
// half-saved, another account's ids → 404, NUL characters → 400, never a 5xx.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after });

describe('dashboard subscriber edit', () => {
  test('edits every field, custom fields and groups in one save; activity shows the changes', async () => {
    const { client } = await signedIn(s);
    await client.post('/fields', { key: 'company', type: 'text' });
    await client.post('/fields', { key: 'age', type: 'number' });
    const vip = (await client.post('/groups', { name: 'VIP' })).body.data;
    const news = (await client.post('/groups', { name: 'News' })).body.data;
    const sub = (await client.post('/subscribers', { email: 'ada@example.com', group_ids: [news.id] })).body.data;

    const saved = await client.put(`/subscribers/${sub.id}`, {
      email: 'ada.l@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      status: 'unsubscribed',
      group_ids: [vip.id],
      custom_fields: { company: 'Analytical', age: '36' },
    });
    assert.equal(saved.status, 200);
    const d = saved.body.data;
    assert.equal(d.email, 'ada.l@example.com');
    assert.equal(d.first_name, 'Ada');
    assert.equal(d.status, 'unsubscribed');
    assert.deepEqual(d.custom_fields, { company: 'Analytical', age: 36 });
    assert.deepEqual(
      d.groups.map((g: any) => g.name),
      ['VIP'],
    );
    // the database's copy of the group ids and the session's own account stay out of what the page gets
    for (const body of [sub, d, (await client.get(`/subscribers/${sub.id}`)).body.data])
      assert.deepEqual([body.member_of, body.account_id], [undefined, undefined]);

    const act = await client.get(`/subscribers/${sub.id}/activity?per_page=50`);
    assert.equal(act.status, 200);
    const types = act.body.data.activity.map((e: any) => e.type);
    for (const t of [
      'subscriber.created',
      'subscriber.updated',
      'subscriber.unsubscribed',
      'subscriber.added_to_group',
      'subscriber.removed_from_group',
    ])
      assert.ok(types.includes(t), `${t} in ${types}`);
    assert.equal(act.body.data.pagination.total_count, types.length);
    assert.equal((await client.get(`/subscribers/${sub.id}/activity?type=nope`)).status, 400);
    assert.equal((await client.get(`/subscribers/${sub.id}/activity?page=0`)).status, 400);
  });

  test('field errors are 400 with the field named and nothing is half-saved', async () => {
    const { client } = await signedIn(s);
    await client.post('/fields', { key: 'age', type: 'number' });
    const sub = (await client.post('/subscribers', { email: 'bob@example.com', first_name: 'Bob' })).body.data;
    await client.post('/subscribers', { email: 'taken@example.com' });

    const bad = await client.put(`/subscribers/${sub.id}`, { email: 'not-an-email', first_name: 'Robert' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data.email, ['A valid email address is required']);

    const badField = await client.put(`/subscribers/${sub.id}`, {
      first_name: 'Robert',
      custom_fields: { age: 'old' },
    });
    assert.equal(badField.status, 400);
    assert.deepEqual(badField.body.data['custom_fields.age'], ['Must be a number']);

    const taken = await client.put(`/subscribers/${sub.id}`, { email: 'TAKEN@example.com', first_name: 'Robert' });
    assert.equal(taken.status, 400);
    assert.deepEqual(taken.body.data.email, ['Another subscriber has this email']);

    const phone = await client.put(`/subscribers/${sub.id}`, { phone: 'call me', first_name: 'Robert' });
    assert.deepEqual(phone.body.data.phone, ['Phone must contain only digits, optionally with a leading plus sign']);

    const status = await client.put(`/subscribers/${sub.id}`, { status: 'bounced' });
    assert.equal(status.status, 400);
    assert.ok(status.body.data.status);

    const still = (await client.get(`/subscribers/${sub.id}`)).body.data;
    assert.equal(still.first_name, 'Bob');
    assert.equal(still.email, 'bob@example.com');

    const nul = await client.put(`/subscribers/${sub.id}`, { first_name: 'Ro\u0000b' });
    assert.equal(nul.status, 400);
    const nulQuery = await client.get(`/subscribers?search=${encodeURIComponent('a\u0000b')}`);
    assert.equal(nulQuery.status, 400);
    assert.equal((await client.put(`/subscribers/${sub.id}`, [1, 2])).status, 400);
    assert.equal((await client.put(`/subscribers/${sub.id}`, { group_ids: ['x'] })).status, 400);

    // the address may change case
    const cased = await client.put(`/subscribers/${sub.id}`, { email: 'Bob@Example.com' });
    assert.equal(cased.status, 200);
    assert.equal(cased.body.data.email, 'Bob@Example.com');
  });

  test('delete; a viewer cannot change; another account’s subscriber, group, field or segment → 404', async () => {
    const owner = await signedIn(s);
    const sub = (await owner.client.post('/subscribers', { email: 'gone@example.com' })).body.data;
    const viewer = await signedIn(s, 'viewer', owner.accountId);
    assert.equal((await viewer.client.put(`/subscribers/${sub.id}`, { first_name: 'X' })).status, 403);
    assert.equal((await viewer.client.delete(`/subscribers/${sub.id}`)).status, 403);
    assert.equal((await viewer.client.get(`/subscribers/${sub.id}/activity`)).status, 200);
    assert.equal((await viewer.client.get('/fields')).status, 200);
    assert.equal((await viewer.client.post('/fields', { key: 'x' })).status, 403);

    const other = await signedIn(s);
    const theirSub = (await other.client.post('/subscribers', { email: 'theirs@example.com' })).body.data;
    const theirGroup = (await other.client.post('/groups', { name: 'Theirs' })).body.data;
    const theirField = (await other.client.post('/fields', { key: 'secret' })).body.data;
    const theirSegment = (
      await other.client.post('/segments', {
        name: 'All',
        filter: { match: 'all', rules: [{ field: 'email', operator: 'contains', value: '@' }] },
      })
    ).body.data;
    assert.equal((await owner.client.put(`/subscribers/${theirSub.id}`, { first_name: 'X' })).status, 404);
    assert.equal((await owner.client.delete(`/subscribers/${theirSub.id}`)).status, 404);
    assert.equal((await owner.client.get(`/subscribers/${theirSub.id}/activity`)).status, 404);
    assert.equal((await owner.client.get('/subscribers/not-a-uuid/activity')).status, 404);
    const foreignGroup = await owner.client.put(`/subscribers/${sub.id}`, { group_ids: [theirGroup.id] });
    assert.equal(foreignGroup.status, 400);
    assert.ok(foreignGroup.body.data.group_ids);
    const foreignField = await owner.client.put(`/subscribers/${sub.id}`, { custom_fields: { secret: 'x' } });
    assert.equal(foreignField.status, 400);
    assert.ok(foreignField.body.data['custom_fields.secret']);
    assert.equal((await owner.client.put(`/fields/${theirField.id}`, { name: 'Mine' })).status, 404);
    assert.equal((await owner.client.delete(`/fields/${theirField.id}`)).status, 404);
    assert.equal((await owner.client.get(`/subscribers?segment_id=${theirSegment.id}`)).status, 404);
    assert.equal((await owner.client.get(`/subscribers?group_id=${theirGroup.id}`)).body.data.subscribers.length, 0);
    assert.equal((await owner.client.get('/subscribers?segment_id=nope')).status, 400);

    const del = await owner.client.delete(`/subscribers/${sub.id}`);
    assert.deepEqual(del.body, { success: true, message: 'Subscriber deleted', data: { id: sub.id, deleted: true } });
    assert.equal((await owner.client.get(`/subscribers/${sub.id}`)).status, 404);
    assert.equal((await owner.client.delete(`/subscribers/${sub.id}`)).status, 404);
  });
});

describe('dashboard subscriber list', () => {
  test('rows carry their source; a segment narrows the list together with search and group', async () => {
    const { client } = await signedIn(s);
    const g = (await client.post('/groups', { name: 'G' })).body.data;
    await client.post('/subscribers', { email: 'ann@example.com', first_name: 'Ann', group_ids: [g.id] });
    await client.post('/subscribers', { email: 'anna@example.com', first_name: 'Anna' });
    await client.post('/subscribers', { email: 'zed@example.com', first_name: 'Zed', group_ids: [g.id] });
    const seg = (
      await client.post('/segments', {
        name: 'A names',
        filter: { match: 'all', rules: [{ field: 'first_name', operator: 'starts_with', value: 'Ann' }] },
      })
    ).body.data;
    const all = (await client.get('/subscribers')).body.data.subscribers;
    assert.deepEqual(new Set(all.map((r: any) => r.source)), new Set(['dashboard']));
    const emails = async (q: string) =>
      (await client.get(`/subscribers?${q}`)).body.data.subscribers.map((r: any) => r.email).sort();
    assert.deepEqual(await emails(`segment_id=${seg.id}`), ['ann@example.com', 'anna@example.com']);
    assert.deepEqual(await emails(`segment_id=${seg.id}&group_id=${g.id}`), ['ann@example.com']);
    assert.deepEqual(await emails(`segment_id=${seg.id}&search=anna`), ['anna@example.com']);
    const paged = (await client.get(`/subscribers?segment_id=${seg.id}&per_page=1&page=2`)).body.data;
    assert.equal(paged.subscribers.length, 1);
    assert.equal(paged.pagination.total_count, 2);

    // the export and a bulk action on "everything matching" take the segment too
    const csv = await client.get(`/subscribers/export?segment_id=${seg.id}&search=anna`);
    assert.deepEqual(
      (csv.body as string)
        .trimEnd()
        .split('\r\n')
        .map((l) => l.split(',')[0]),
      ['email', 'anna@example.com'],
    );
    const bulk = await client.post('/subscribers/bulk', {
      action: 'unsubscribe',
      filter: { segment_id: seg.id, group_id: g.id },
    });
    assert.deepEqual(bulk.body, { success: true, data: { affected: 1 } });
    assert.deepEqual(await emails('status=unsubscribed'), ['ann@example.com']);
    const other = await signedIn(s);
    const theirs = (
      await other.client.post('/segments', {
        name: 'Theirs',
        filter: { match: 'all', rules: [{ field: 'email', operator: 'contains', value: '@' }] },
      })
    ).body.data;
    const foreign = await client.post('/subscribers/bulk', { action: 'delete', filter: { segment_id: theirs.id } });
    assert.equal(foreign.status, 404);
    assert.equal((await client.get(`/subscribers/export?segment_id=${theirs.id}`)).status, 404);
    assert.equal((await client.post('/subscribers/bulk', { action: 'delete', filter: { segment_id: 5 } })).status, 400);
    assert.equal((await client.get('/subscribers')).body.data.pagination.total_count, 3);
  });
});

describe('dashboard custom fields', () => {
  test('list, create, rename, delete; key rules and duplicates are field errors', async () => {
    const { client } = await signedIn(s);
    const f = await client.post('/fields', { key: 'Company', name: 'Company name', type: 'text' });
    assert.equal(f.status, 201);
    assert.equal(f.body.data.key, 'company');
    assert.equal((await client.post('/fields', { key: 'company' })).status, 409);
    const badKey = await client.post('/fields', { key: '1 bad' });
    assert.equal(badKey.status, 400);
    assert.ok(badKey.body.data.key);
    assert.equal((await client.post('/fields', { key: 'email' })).status, 400);
    assert.equal((await client.post('/fields', { key: 'ok', type: 'color' })).status, 400);
    assert.equal((await client.post('/fields', { key: 'ok', name: 'a\u0000b' })).status, 400);

    const renamed = await client.put(`/fields/${f.body.data.id}`, { name: 'Employer' });
    assert.equal(renamed.body.data.name, 'Employer');
    assert.equal(renamed.body.data.key, 'company');
    const blank = await client.put(`/fields/${f.body.data.id}`, { name: '  ' });
    assert.deepEqual(blank.body.data, { name: ['Name is required'] });
    assert.equal((await client.put('/fields/nope', { name: 'X' })).status, 404);

    const listed = (await client.get('/fields')).body.data.fields;
    assert.deepEqual(
      listed.map((x: any) => [x.key, x.name, x.type]),
      [['company', 'Employer', 'text']],
    );
    assert.equal((await client.delete(`/fields/${f.body.data.id}`)).status, 200);
    assert.deepEqual((await client.get('/fields')).body.data.fields, []);
  });
});

describe('dashboard import column preview', () => {
  test('maps the header by the import rule: columns, aliases, custom fields, ignored ones', async () => {
    const { client } = await signedIn(s);
    await client.post('/fields', { key: 'company', name: 'Company', type: 'text' });
    const p = await client.post('/imports/columns', { header: 'E-mail;First Name;lastname;Company;shoe size\r\n' });
    assert.equal(p.status, 200);
    assert.deepEqual(p.body.data, {
      columns: [
        // a header line alone has no rows: no sample values
        { header: 'E-mail', maps_to: 'email', field: null, samples: [] },
        { header: 'First Name', maps_to: 'first_name', field: null, samples: [] },
        { header: 'lastname', maps_to: 'last_name', field: null, samples: [] },
        {
          header: 'Company',
          maps_to: 'custom_fields.company',
          field: { key: 'company', name: 'Company', type: 'text' },
          samples: [],
        },
        { header: 'shoe size', maps_to: null, field: null, samples: [] },
      ],
      problem: null,
    });
    const noEmail = (await client.post('/imports/columns', { header: 'name,company' })).body.data;
    assert.match(noEmail.problem, /No email column/);
    const dup = (await client.post('/imports/columns', { header: 'email,e_mail' })).body.data;
    assert.match(dup.problem, /^Duplicate column/);
    const quoted = (await client.post('/imports/columns', { header: '"email","a ""b"""' })).body.data;
    assert.deepEqual(
      quoted.columns.map((c: any) => c.header),
      ['email', 'a "b"'],
    );
    assert.equal((await client.post('/imports/columns', { header: 'email\u0000' })).status, 400);
    assert.equal((await client.post('/imports/columns', { header: 5 })).status, 400);
    assert.equal((await client.post('/imports/columns', { header: 'x'.repeat(70_000) })).status, 400);
  });
});
