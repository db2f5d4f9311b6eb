// The block document's bounds: every hostile or oversized input is a Validation on the field it came in,
// naming the block, before anything is rendered or stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_BLOCKS, parseDocument } from '../../../../src/domain/content/blocks/schema.ts';
import { Validation } from '../../../../src/domain/errors.ts';

const doc = (blocks: unknown[], extra: Record<string, unknown> = {}) => ({ version: 1, blocks, ...extra });
const refused = (source: unknown, pattern: RegExp) =>
  assert.throws(
    () => parseDocument(source),
    (err: any) => {
      assert.ok(err instanceof Validation, String(err));
      assert.deepEqual(Object.keys(err.fields), ['content_source']);
      assert.match(err.message, pattern);
      return true;
    },
  );

describe('parseDocument', () => {
  test('a document with every block type parses, style defaults filled in', () => {
    const d = parseDocument(
      JSON.stringify(
        doc([
          { id: 'h', type: 'heading', text: 'Hi {{ subscriber.first_name | default: "there" }}', level: 1 },
          { id: 't', type: 'text', html: '<p>Hello <a href="{{ unsubscribe_url }}">x</a></p>' },
          {
            id: 'i',
            type: 'image',
            src: 'https://example.com/a.png',
            alt: 'A',
            href: 'mailto:a@example.com',
            width: 300,
          },
          { id: 'b', type: 'button', text: 'Go', href: 'https://example.com', color: '#112233' },
          { id: 'c', type: 'columns', columns: [[{ id: 'x', type: 'spacer', height: 10 }], []] },
          { id: 'd', type: 'divider', thickness: 2 },
          { id: 's', type: 'social', links: [{ network: 'x', url: 'https://x.com/a' }] },
          { id: 'r', type: 'html', html: '<table><tr><td style="color:red">x</td></tr></table>' },
          { id: 'f', type: 'footer', style: { padding: [1, 2, 3, 4], align: 'center' } },
        ]),
      ),
    );
    assert.equal(d.blocks.length, 9);
    assert.equal(d.style.width, 600);
    assert.equal(d.style.fontFamily, 'Helvetica, Arial, sans-serif');
  });

  test('unknown block types, unknown fields and a wrong version are refused', () => {
    refused(doc([{ id: 'a', type: 'video', src: 'https://x' }]), /blocks\.0.*Block type must be one of/);
    refused(doc([{ id: 'a', type: 'spacer', height: 10, onclick: 'x' }]), /blocks\.0/);
    refused({ version: 2, blocks: [] }, /version must be 1/);
    refused('{not json', /not valid JSON/);
  });

  test('columns hold 2 or 3 columns and never columns: 10,000 nested blocks are refused at the second level', () => {
    // written as text: JSON.stringify itself cannot follow 30,000 levels
    const open = '{"id":"c","type":"columns","columns":[['.repeat(10_000);
    const close = ']]}'.repeat(10_000);
    const text = `{"version":1,"blocks":[${open}{"id":"leaf","type":"spacer","height":10}${close}]}`;
    refused(text, /columns only at the top level/);
    refused(JSON.parse(text), /nested too deeply|columns only at the top level/);
    refused(doc([{ id: 'c', type: 'columns', columns: [[]] }]), /2 or 3 columns/);
  });

  test(`more than ${MAX_BLOCKS} blocks, counted inside columns too, and a document over 512 KB are refused`, () => {
    const spacer = (i: number) => ({ id: `s${i}`, type: 'spacer', height: 10 });
    refused(doc(Array.from({ length: MAX_BLOCKS + 1 }, (_, i) => spacer(i))), /at most 500 blocks/);
    const cols = Array.from({ length: 200 }, (_, i) => ({
      id: `c${i}`,
      type: 'columns',
      columns: [[spacer(i)], [spacer(i)]],
    }));
    refused(doc(cols), /at most 500 blocks/);
    refused(JSON.stringify(doc([{ id: 't', type: 'text', html: 'x'.repeat(10 * 1024 * 1024) }])), /larger than 512 KB/);
    refused(doc([{ id: 't', type: 'text', html: 'x'.repeat(600 * 1024) }]), /larger than 512 KB/);
  });

  test('javascript: and data: URLs are refused in every URL field, however they are spelt', () => {
    for (const url of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:x',
      '//evil.example',
    ]) {
      refused(doc([{ id: 'b', type: 'button', text: 'Go', href: url }]), /Button link must be/);
      refused(doc([{ id: 'i', type: 'image', src: url, alt: '' }]), /Image src must be/);
      refused(doc([{ id: 's', type: 'social', links: [{ network: 'x', url }] }]), /Social link must be/);
    }
    refused(doc([{ id: 'i', type: 'image', src: 'mailto:a@b.c', alt: '' }]), /Image src must be an http\(s\) URL/);
  });

  test('script, event handlers and active URLs in rich text or raw HTML are refused with the reason', () => {
    const cases: [string, RegExp][] = [
      ['<p>hi</p><script>alert(1)</script>', /<script> element/],
      ['<img src="x" onerror="alert(1)">', /event handler \(onerror\)/],
      ['<a href="javascript:alert(1)">x</a>', /javascript: URL/],
      ['<a href="jav&#x09;ascript:alert(1)">x</a>', /javascript: URL/],
      ['<img src="data:image/svg+xml;base64,AAAA">', /data: URL/],
      ['<svg><circle/></svg>', /<svg> element/],
      ['<iframe src="https://x"></iframe>', /<iframe> element/],
      ['<div style="background:url(javascript:alert(1))">x</div>', /active style/],
    ];
    for (const [html, reason] of cases) {
      refused(doc([{ id: 't', type: 'text', html }]), reason);
      refused(doc([{ id: 'r', type: 'html', html }]), reason);
    }
  });

  test('colours, fonts and numbers are bounded so no style value can break out of its attribute', () => {
    refused(doc([{ id: 'd', type: 'divider', color: 'red;x:expression(1)' }]), /#rrggbb/);
    refused(doc([{ id: 'd', type: 'divider', style: { fontFamily: 'Arial"><script>' } }]), /fontFamily/);
    refused(doc([{ id: 'd', type: 'spacer', height: 5000 }]), /blocks\.0\.height/);
    refused(doc([], { style: { width: 100000 } }), /style\.width/);
  });
});
