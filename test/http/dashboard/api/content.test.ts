// /app/api for the block editor (contract with the dashboard): images, templates, the live render with
// a subscriber's data, merge tags with custom fields, "Preview as" search past the first page, and the
// draft conflict check that keeps two tabs from overwriting each other.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedAudience } from '../../../support/campaigns.ts';
import { png, svg } from '../../../support/images.ts';
import { fileScope } from '../../../support/scope.ts';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer(fileScope, { PUBLIC_URL: 'https://mail.example.test' });
const doc = (blocks: unknown[]) => ({ version: 1, blocks });
const hello = { id: 'h', type: 'heading', level: 1, text: 'Hello {{ subscriber.first_name | default: "there" }}' };

const imageForm = (bytes: Uint8Array, name: string) => {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  return form;
};

describe('dashboard block editor API', () => {
  test('images: upload → {id, url, content_type, width, height, size}; list; delete; an SVG is a 400', async () => {
    const { client } = await signedIn(s);
    const up = await client.post('/images', imageForm(png(), 'a.png'));
    assert.equal(up.status, 201, JSON.stringify(up.body));
    for (const k of ['id', 'url', 'content_type', 'width', 'height', 'size']) assert.ok(k in up.body.data, k);
    assert.match(up.body.data.url, /^https:\/\/mail\.example\.test\/images\/.+\.png$/);
    const list = await client.get('/images');
    assert.deepEqual(Object.keys(list.body.data).sort(), ['images', 'pagination']);
    assert.equal(list.body.data.images[0].id, up.body.data.id);
    assert.equal((await client.post('/images', imageForm(svg(), 'a.svg'))).status, 400);
    assert.equal((await client.delete(`/images/${up.body.data.id}`)).status, 200);
    const viewer = await signedIn(s, 'viewer');
    assert.equal((await viewer.client.post('/images', imageForm(png(), 'a.png'))).status, 403);
  });

  test('templates: starters with thumbnails, save from a document, delete', async () => {
    const { client } = await signedIn(s);
    const list = await client.get('/templates?kind=campaign&thumbnails=true');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.templates.length, 6);
    assert.match(list.body.data.templates[0].thumbnail_html, /<html/);
    const saved = await client.post('/templates', { name: 'Mine', kind: 'automation', document: doc([hello]) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.equal((await client.get('/templates?kind=automation')).body.data.templates.length, 7);
    assert.equal((await client.get('/templates?kind=campaign')).body.data.templates.length, 6);
    assert.equal((await client.delete(`/templates/${saved.body.data.id}`)).status, 200);
  });

  test('render: {html, text} of an unsaved document, as a real subscriber; hostile documents are 400', async () => {
    const { client, accountId } = await signedIn(s);
    const sub = await s.db
      .insertInto('subscribers')
      .values({ account_id: accountId, email: 'grace@example.com', first_name: 'Grace', custom_fields: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sample = await client.post('/blocks/render', { document: doc([hello]) });
    assert.equal(sample.status, 200, JSON.stringify(sample.body));
    assert.match(sample.body.data.html, /Hello Preview/);
    assert.match(sample.body.data.text, /Hello Preview/);
    const as = await client.post('/blocks/render', { document: JSON.stringify(doc([hello])), subscriber_id: sub.id });
    assert.match(as.body.data.html, /Hello Grace/);
    const bad = await client.post('/blocks/render', {
      document: doc([{ id: 't', type: 'text', html: '<script>x</script>' }]),
    });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.content_source || bad.body.data.document, JSON.stringify(bad.body));
  });

  test("a form's confirmation mail not saved yet renders for a sample signup; without {{ confirm_url }} a 400", async () => {
    const { client } = await signedIn(s);
    const starter = (await client.get('/templates?kind=confirmation')).body.data.templates.find(
      (t: any) => t.key === 'confirmation',
    );
    const r = await client.post('/confirmation/render', {
      confirmation_subject: 'Almost there',
      content_format: 'blocks',
      content_source: starter.document,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.subject, 'Almost there');
    assert.match(r.body.data.html, /href="https:\/\/mail\.example\.test\/f\/confirm\/sample-link"/);
    assert.match(r.body.data.html, /Hi Ada,/);
    assert.equal((await client.post('/confirmation/render', {})).body.data.subject, 'Please confirm your subscription');
    const bad = await client.post('/confirmation/render', { content_format: 'blocks', content_source: doc([hello]) });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /confirm_url/);
  });

  test('merge tags list every field, custom fields included, with a fallback for the first name', async () => {
    const { client } = await signedIn(s);
    assert.equal((await client.post('/fields', { key: 'city', name: 'City', type: 'text' })).status, 201);
    const tags = (await client.get('/merge-tags')).body.data.tags;
    const byPath = new Map(tags.map((t: any) => [t.path, t]));
    assert.equal((byPath.get('subscriber.first_name') as any).insert, '{{ subscriber.first_name | default: "there" }}');
    assert.equal((byPath.get('subscriber.custom_fields.city') as any).label, 'City');
    assert.ok(byPath.has('unsubscribe_url'));
    assert.ok(byPath.has('account.postal_address'));
  });

  test('"Preview as" finds any subscriber by search, not only the first page', async () => {
    const { client, accountId } = await signedIn(s);
    await seedAudience(s.db, accountId, 60);
    const found = await client.get('/preview-subscribers?search=r57@');
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.data.subscribers.map((x: any) => x.email),
      ['r57@example.com'],
    );
    assert.equal(found.body.data.subscribers[0].first_name, 'Name57');
  });

  test('a draft saved with a stale expected_updated_at is a 409; the current one saves; REST without it saves', async () => {
    const { client } = await signedIn(s);
    const c = (
      await client.post('/campaigns', { name: 'Draft', content_format: 'blocks', content_source: doc([hello]) })
    ).body.data;
    assert.ok(c.updated_at, 'the editor gets updated_at to send back');
    const first = await client.put(`/campaigns/${c.id}`, { subject: 'Tab one', expected_updated_at: c.updated_at });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const stale = await client.put(`/campaigns/${c.id}`, { subject: 'Tab two', expected_updated_at: c.updated_at });
    assert.equal(stale.status, 409);
    assert.match(stale.body.error, /changed elsewhere/);
    assert.equal((await client.get(`/campaigns/${c.id}`)).body.data.subject, 'Tab one');
    const next = await client.put(`/campaigns/${c.id}`, {
      subject: 'Tab one again',
      expected_updated_at: first.body.data.updated_at,
    });
    assert.equal(next.status, 200);
    assert.equal((await client.put(`/campaigns/${c.id}`, { subject: 'No check' })).status, 200);
  });
});
