// /api/v1/external/templates and block campaigns through REST: six starters, saving a template from a
// document or a block campaign, POST /campaigns {template_id}, content_format "blocks" in and out, hostile
// documents refused with nothing stored — and a block campaign with a merge tag and an uploaded image
// sent to an SMTP sink.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sendCampaignTo } from '../../support/campaigns.ts';
import { png } from '../../support/images.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';

const sink = await startSink({ parse: true });
after(() => sink.close());
const s = await startServer(fileScope, {
  PUBLIC_URL: 'https://mail.example.test',
  SMTP_URL: sink.url,
  WORKER_POLL_MS: 100,
});

const doc = (blocks: unknown[]) => ({ version: 1, blocks });
const heading = { id: 'h', type: 'heading', level: 1, text: 'Hello {{ subscriber.first_name | default: "there" }}' };

describe('REST templates', () => {
  test('six starters and saved templates; save from a document or a block campaign; delete', async () => {
    const { api } = await s.restAccount();
    const list = await api.get('/templates');
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const keys = list.body.data.templates.map((t: any) => t.key);
    for (const key of ['newsletter', 'announcement', 'promotion', 'welcome', 'event', 'letter'])
      assert.ok(keys.includes(key), key);
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    assert.ok(
      list.body.data.templates.every((t: any) => UUID.test(t.id)),
      'starter ids are fixed UUIDs',
    );
    assert.ok(list.body.data.templates.every((t: any) => t.kind === 'starter' && t.document.version === 1));

    const saved = await api.post('/templates', { name: 'Mine', document: doc([heading]) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.equal(saved.body.data.kind, 'saved');
    const c = await api.post('/campaigns', { name: 'B', content_format: 'blocks', content_source: doc([heading]) });
    const fromCampaign = await api.post('/templates', { name: 'From campaign', campaign_id: c.body.data.id });
    assert.equal(fromCampaign.status, 201, JSON.stringify(fromCampaign.body));
    assert.equal(fromCampaign.body.data.document.blocks[0].text, heading.text);

    const html = await api.post('/campaigns', { name: 'H', content_html: '<p>x</p>' });
    const notBlocks = await api.post('/templates', { name: 'X', campaign_id: html.body.data.id });
    assert.equal(notBlocks.status, 400);
    assert.match(notBlocks.body.error, /block editor/);
    assert.equal(
      (await api.post('/templates', { name: 'X', document: doc([{ id: 'x', type: 'video' }]) })).status,
      400,
    );
    assert.equal((await api.post('/templates', { name: 'X' })).status, 400);

    const thumbs = await api.get('/templates?thumbnails=true');
    assert.match(thumbs.body.data.templates[0].thumbnail_html, /<html/);
    const other = await s.restAccount();
    assert.equal((await other.api.get('/templates')).body.data.templates.length, 6, 'saved ones are per account');
    assert.equal((await other.api.delete(`/templates/${saved.body.data.id}`)).status, 404);
    assert.equal((await api.delete(`/templates/${saved.body.data.id}`)).status, 200);
    assert.equal((await api.get('/templates')).body.data.templates.length, 7);
    const confirmation = (await api.get('/templates?kind=confirmation')).body.data.templates;
    assert.deepEqual(
      confirmation.filter((t: any) => t.kind === 'starter').map((t: any) => t.key),
      ['newsletter', 'announcement', 'promotion', 'welcome', 'event', 'letter', 'confirmation'],
      'the confirmation starter is offered for confirmation mails only',
    );
  });

  test('POST /campaigns with template_id starts from the starter or saved document; an unknown one is a 400', async () => {
    const { api } = await s.restAccount();
    const newsletter = (await api.get('/templates')).body.data.templates.find((t: any) => t.key === 'newsletter');
    const c = await api.post('/campaigns', { name: 'From starter', template_id: 'newsletter' });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const byUuid = await api.post('/campaigns', { name: 'From starter', template_id: newsletter.id });
    assert.equal(byUuid.status, 201, JSON.stringify(byUuid.body));
    assert.equal(byUuid.body.data.content_source, c.body.data.content_source, 'the key and the UUID are one starter');
    assert.equal(c.body.data.content_format, 'blocks');
    assert.equal(JSON.parse(c.body.data.content_source).version, 1);
    assert.match(c.body.data.content_html, /^<!doctype html>/i);
    assert.match(c.body.data.content_html, /The Monthly Letter/);
    const saved = (await api.post('/templates', { name: 'Mine', document: doc([heading]) })).body.data;
    const c2 = await api.post('/campaigns', { name: 'From saved', template_id: saved.id });
    assert.match(c2.body.data.content_html, /Hello \{\{ subscriber.first_name/);
    const bad = await api.post('/campaigns', { name: 'X', template_id: 'nope' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /Template not found/);
  });
});

describe('block campaigns through REST', () => {
  test('content_format blocks in (object or JSON text) and out beside the rendered HTML; update re-renders', async () => {
    const { api } = await s.restAccount();
    const created = await api.post('/campaigns', {
      name: 'B',
      content_format: 'blocks',
      content_source: doc([heading]),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const c = created.body.data;
    assert.equal(c.content_format, 'blocks');
    assert.deepEqual(JSON.parse(c.content_source).blocks, [heading]);
    assert.match(c.content_html, /<body/);
    const text = JSON.stringify(doc([{ id: 't', type: 'text', html: '<p>Second version</p>' }]));
    const put = await api.put(`/campaigns/${c.id}`, { content_source: text });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.data.content_format, 'blocks', 'the stored format is kept');
    assert.match(put.body.data.content_html, /Second version/);
    assert.equal((await api.get(`/campaigns/${c.id}`)).body.data.content_source, text);
  });

  test('hostile documents are a 400 naming content_source, and nothing is stored or changed', async () => {
    const { api, accountId } = await s.restAccount();
    const c = (await api.post('/campaigns', { name: 'Keep', content_format: 'blocks', content_source: doc([heading]) }))
      .body.data;
    const hostile: [unknown, RegExp][] = [
      [doc([{ id: 'x', type: 'marquee' }]), /Block type must be one of/],
      [doc([{ id: 't', type: 'text', html: '<p>hi<script>alert(1)</script></p>' }]), /<script> element/],
      [doc([{ id: 'r', type: 'html', html: '<a href="#" onclick="x()">x</a>' }]), /event handler/],
      [doc([{ id: 'b', type: 'button', text: 'x', href: 'javascript:alert(1)' }]), /Button link/],
      [doc([{ id: 'i', type: 'image', src: 'data:image/png;base64,AAAA', alt: '' }]), /Image src/],
      [JSON.stringify(doc([{ id: 't', type: 'text', html: 'x'.repeat(10 * 1024 * 1024) }])), /content_source/],
      [
        `{"version":1,"blocks":[${'{"id":"c","type":"columns","columns":[['.repeat(10_000)}${']]}'.repeat(10_000)}]}`,
        /content_source/,
      ],
      [{ version: 1, blocks: [heading], extra: true }, /content_source/],
    ];
    for (const [content_source, pattern] of hostile) {
      const res = await api.post('/campaigns', { name: 'Bad', content_format: 'blocks', content_source });
      assert.ok([400, 413].includes(res.status), `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      if (res.status === 400) assert.match(JSON.stringify(res.body), pattern);
      const upd = await api.put(`/campaigns/${c.id}`, { content_format: 'blocks', content_source });
      assert.ok([400, 413].includes(upd.status), `${upd.status}`);
    }
    const rows = await s.db
      .selectFrom('campaigns')
      .select(['name', 'content_source'])
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.name),
      ['Keep'],
    );
    assert.deepEqual(JSON.parse(rows[0]!.content_source!).blocks, [heading]);
  });

  test('sent to an SMTP sink: the personalised name, the blocks and the uploaded image under PUBLIC_URL', async () => {
    const { api, key, accountId } = await s.restAccount();
    const form = new FormData();
    form.append('file', new Blob([png()], { type: 'image/png' }), 'hero.png');
    const up = await fetch(`${s.url}/api/v1/external/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const image = ((await up.json()) as any).data;
    assert.match(image.url, /^https:\/\/mail\.example\.test\/images\//);
    const document = doc([
      heading,
      { id: 'i', type: 'image', src: image.url, alt: 'Hero', imageId: image.id },
      { id: 'b', type: 'button', text: 'Read more', href: 'https://example.org/more' },
      {
        id: 'c',
        type: 'columns',
        columns: [
          [{ id: 'l', type: 'text', html: '<p>Left column</p>' }],
          [{ id: 'r', type: 'text', html: '<p>Right column</p>' }],
        ],
      },
      { id: 'f', type: 'footer' },
    ]);
    const { messageIds } = await sendCampaignTo(s.db, api, accountId, ['ada@example.com'], {
      content_format: 'blocks',
      content_source: document,
    });
    await sink.waitFor(() => sink.messages.some((m) => m.to.includes('ada@example.com')));
    const mail = sink.messages.find((m) => m.to.includes('ada@example.com'))!;
    const html = String(mail.parsed!.html);
    assert.ok(messageIds.get('ada@example.com'));
    assert.match(html, /Hello First0/);
    assert.match(html, new RegExp(`src="${image.url.replace(/[.]/g, '\\.')}"`));
    assert.match(html, /Left column[\s\S]*Right column/);
    assert.match(html, /<body/);
    assert.doesNotMatch(html, /<script/i);
    assert.match(String(mail.parsed!.text), /Hello First0/);
  });
});
