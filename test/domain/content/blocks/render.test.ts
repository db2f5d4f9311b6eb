// What a block document becomes: a full, table-laid-out email with inline styles, Liquid left for send
// time, and never script — even for a document that reached the database without passing the schema.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileChecked } from '../../../../src/domain/campaigns/templates.ts';
import { renderDocument, toMjml } from '../../../../src/domain/content/blocks/render.ts';
import { parseDocument, type BlockDocument } from '../../../../src/domain/content/blocks/schema.ts';
import { starters } from '../../../../src/domain/content/starters.ts';
import { compileMjmlHere } from '../../../../src/mail/mjml.ts';
import { renderMessage } from '../../../../src/mail/render.ts';

const doc = (blocks: unknown[]) => parseDocument({ version: 1, blocks });

describe('renderDocument', () => {
  test('a full document: <html>, <body>, tables for Outlook, inline styles, light colour scheme declared', async () => {
    const html = await renderDocument(
      doc([
        { id: 'h', type: 'heading', text: 'Hello {{ subscriber.first_name | default: "there" }}', level: 1 },
        {
          id: 'b',
          type: 'button',
          text: 'Go',
          href: 'https://example.com/?n={{ subscriber.first_name | default: "x" }}',
        },
        {
          id: 'c',
          type: 'columns',
          columns: [
            [{ id: 'l', type: 'text', html: '<p>left</p>' }],
            [{ id: 'r', type: 'text', html: '<p>right</p>' }],
          ],
        },
        { id: 'f', type: 'footer' },
      ]),
    );
    assert.match(html, /^<!doctype html>/i);
    assert.match(html, /<body[^>]*style="[^"]*background-color:#f4f4f5/);
    assert.match(html, /<table[^>]*role="presentation"/);
    assert.match(html, /<!--\[if mso \| IE\]>/);
    assert.match(html, /mj-column-per-50/);
    assert.match(html, /<meta name="color-scheme" content="light">/);
    assert.match(html, /color:#1f2937/);
    assert.match(html, /Hello \{\{ subscriber.first_name \| default: "there" \}\}/);
    // Liquid in an attribute: quotes turned to single ones, so the attribute stays whole and Liquid still parses
    assert.match(html, /href="https:\/\/example.com\/\?n=\{\{ subscriber.first_name \| default: 'x' \}\}"/);
    assert.match(html, /href="\{\{ unsubscribe_url \}\}"/);
    const t = compileChecked({ subject: 's', html });
    const m = renderMessage(t, {
      subscriber: { id: '1', email: 'a@example.com', first_name: 'Ada' },
      unsubscribeUrl: 'https://example.com/u/1',
    });
    assert.match(m.html, /Hello Ada/);
    assert.match(m.html, /href="https:\/\/example.com\/\?n=Ada"/);
    assert.match(m.text, /Hello Ada/);
  });

  test('script never reaches the HTML, even from a document that skipped the schema', async () => {
    const hostile = {
      version: 1,
      style: parseDocument({ version: 1, blocks: [] }).style,
      blocks: [
        {
          id: 't',
          type: 'text',
          html: '<p onclick="x()">a<script>alert(1)</script><a href="javascript:alert(1)">l</a><img src=x onerror=alert(1)></p>',
        },
        {
          id: 'r',
          type: 'html',
          html: '<div style="width:1px" onmouseover="x()"><iframe src="https://x"></iframe><a href="data:text/html,x">d</a><form action="https://x"><input></form></div>',
        },
        { id: 'h', type: 'heading', level: 1, text: '<script>alert(1)</script>' },
      ],
    } as unknown as BlockDocument;
    const html = await renderDocument(hostile);
    assert.doesNotMatch(html, /<script|onclick|onerror|onmouseover|javascript:|data:text|<iframe|<form|<input/i);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'heading text is escaped, not dropped');
    assert.match(html, /style="width:1px"/, 'inline styles of raw HTML are kept');
  });

  test('the six starters render, each with the footer, in well under a second after the first', async () => {
    const ids = starters().map((s) => s.key);
    for (const want of ['newsletter', 'announcement', 'promotion', 'welcome', 'event', 'letter'])
      assert.ok(ids.includes(want), want);
    for (const s of starters()) {
      parseDocument(JSON.stringify(s.document)); // they pass their own schema
      assert.ok(
        s.document.blocks.some((b) => b.type === 'footer'),
        `${s.id} has a footer`,
      );
      const html = await renderDocument(s.document);
      assert.match(html, /\{\{ unsubscribe_url \}\}/);
      assert.match(html, /\{\{ account.postal_address \}\}/);
      compileChecked({ subject: s.name, html });
    }
    assert.match(toMjml(starters()[0]!.document), /^<mjml>/);
  });

  test("the renderer's MJML passes MJML's strict validation, which renders skip for speed", async () => {
    const every = doc([
      { id: 'h', type: 'heading', text: 'H', level: 2, style: { align: 'center', background: '#eeeeee' } },
      { id: 't', type: 'text', html: '<p>T <a href="https://x.test">l</a></p>', style: { fontFamily: 'Georgia' } },
      { id: 'i', type: 'image', src: 'https://x.test/a.png', alt: 'A', href: 'https://x.test', width: 300 },
      { id: 'b', type: 'button', text: 'B', href: '{{ confirm_url }}', color: '#166534', textColor: '#ffffff' },
      {
        id: 'c',
        type: 'columns',
        columns: [
          [{ id: 'c1', type: 'text', html: '<p>1</p>' }],
          [{ id: 'c2', type: 'divider', color: '#dddddd', thickness: 2 }],
          [{ id: 'c3', type: 'spacer', height: 20 }],
        ],
      },
      { id: 's', type: 'social', links: [{ network: 'website', url: 'https://x.test' }] },
      { id: 'r', type: 'html', html: '<table><tr><td>raw</td></tr></table>' },
      { id: 'f', type: 'footer', text: 'Why you get this' },
    ]);
    const confirmation = starters('confirmation').find((s) => s.key === 'confirmation')!;
    for (const d of [every, confirmation.document, ...starters().map((s) => s.document)])
      await compileMjmlHere(toMjml(d)); // strict: throws on an unknown attribute or a misplaced element
    assert.match(await renderDocument(confirmation.document), /href="\{\{ confirm_url \}\}"/);
  });
});
