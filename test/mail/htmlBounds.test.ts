// The shape limits of HTML and MJML: refused at the first limit crossed, fast, with the limit named;
// real documents (a long newsletter, MJML output) far inside them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkHtmlBounds, ContentBoundError, HTML_LIMITS } from '../../src/mail/htmlBounds.ts';

const refused = (source: string, message: RegExp, what?: 'HTML' | 'MJML') => {
  const t = performance.now();
  assert.throws(
    () => checkHtmlBounds(source, what),
    (err: unknown) => err instanceof ContentBoundError && message.test((err as Error).message),
  );
  return performance.now() - t;
};

describe('HTML shape limits', () => {
  test('nesting: 300 levels pass, 301 are refused; unclosed tags count as nesting, implied closes do not', () => {
    checkHtmlBounds('<div>'.repeat(HTML_LIMITS.depth) + '</div>'.repeat(HTML_LIMITS.depth));
    refused('<div>'.repeat(HTML_LIMITS.depth + 1), /nested too deeply: .* at most 300 levels deep/);
    // <p> closes the open <p>, <br> and <img> are void: 10,000 of each are siblings, not a tower
    checkHtmlBounds('<p>a'.repeat(10_000) + '<br><img src=x>'.repeat(5_000));
    refused('<table><tr><td>'.repeat(150), /nested too deeply/);
  });

  test('a hostile document costs its first few hundred levels, not its size', () => {
    const ms = refused('<div>'.repeat(150_000) + '</div>'.repeat(150_000), /nested too deeply/);
    assert.ok(ms < 200, `${Math.round(ms)} ms`);
  });

  test('elements in the document and attributes on one element', () => {
    checkHtmlBounds('<p>x</p>'.repeat(HTML_LIMITS.elements));
    refused('<p>x</p>'.repeat(HTML_LIMITS.elements + 1), /too large: at most 20,000 elements/);
    checkHtmlBounds(`<div ${'a="" '.repeat(HTML_LIMITS.attributes)}>`);
    refused(`<div ${'a="" '.repeat(HTML_LIMITS.attributes + 1)}>`, /too many attributes: at most 256/);
    refused('<a '.repeat(100_000), /too many attributes/); // an unclosed tag swallowing the document
  });

  test('MJML: read as MJML reads it (self-closing tags), with a smaller element budget, named MJML', () => {
    checkHtmlBounds(
      '<mjml><mj-body>' +
        '<mj-section><mj-column><mj-image src="x" /></mj-column></mj-section>'.repeat(500) +
        '</mj-body></mjml>',
      'MJML',
    );
    refused(
      '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(1_000),
      /^MJML too large: at most 2,000 elements/,
      'MJML',
    );
    refused('<mjml><mj-body><mj-raw>' + '<div>'.repeat(1_000), /^MJML nested too deeply/, 'MJML');
  });

  test('Liquid in the markup is text to the scan', () => {
    checkHtmlBounds(
      '{% for i in (1..3) %}<p class="{{ c }}">{{ i }}</p>{% endfor %}<a href="{{ unsubscribe_url }}">u</a>',
    );
  });
});
