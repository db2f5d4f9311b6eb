// The shape limits of an HTML or MJML document, checked before anything builds a tree of it. The steps
// after Liquid (html-to-text, MJML compile, link rewriting) walk the document recursively and cost far
// more than its size suggests: 150,000 nested elements overflowed html-to-text's stack after 30 s, 10,000
// MJML sections took seconds each. A real newsletter nests 10–30 levels deep with a few thousand
// elements, so each limit is ten or more times what one needs and far below what hurts.
// The scan is htmlparser2's tokenizer (the parser html-to-text and MJML use), so it counts the tree those
// steps would build, implied closes included; it stops at the first limit crossed, so a hostile document
// costs no more to refuse than its first few hundred levels.
import { Parser } from 'htmlparser2';

export const HTML_LIMITS = {
  /** levels of elements inside one another */
  depth: 300,
  /** elements in the whole document: html-to-text takes ~0.35 s for 20,000 */
  elements: 20_000,
  /**
   * elements of an MJML document, HTML inside it included: MJML compiles at ~7 ms per section (4–5
   * elements), so 2,000 elements take ~3 s and the render pool's deadline refuses what is just under
   */
  mjmlElements: 2_000,
  /** attributes on one element */
  attributes: 256,
};

/** A document beyond a shape limit; the message names the limit and how to stay within it. */
export class ContentBoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentBoundError';
  }
}

class Stop extends Error {}

/** Throws a ContentBoundError when `source` (HTML, or MJML with `what` = 'MJML') crosses a limit of HTML_LIMITS. */
export function checkHtmlBounds(source: string, what: 'HTML' | 'MJML' = 'HTML'): void {
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  let problem: string | undefined;
  const maxElements = what === 'MJML' ? HTML_LIMITS.mjmlElements : HTML_LIMITS.elements;
  const stop = (message: string): never => {
    problem = message;
    throw new Stop();
  };
  const parser = new Parser(
    {
      onopentagname() {
        attributes = 0;
        if (++depth > HTML_LIMITS.depth)
          stop(
            `${what} nested too deeply: elements may be nested at most ${HTML_LIMITS.depth} levels deep (check for unclosed tags)`,
          );
        if (++elements > maxElements)
          stop(`${what} too large: at most ${maxElements.toLocaleString('en')} elements are allowed`);
      },
      onattribute() {
        if (++attributes > HTML_LIMITS.attributes)
          stop(
            `${what} element with too many attributes: at most ${HTML_LIMITS.attributes} are allowed on one element`,
          );
      },
      onclosetag() {
        depth--;
      },
    },
    // as MJML's own parser reads it (mjml-parser-xml): <mj-image /> closes itself
    { decodeEntities: false, recognizeSelfClosing: what === 'MJML' },
  );
  try {
    parser.end(source);
  } catch (err) {
    if (err instanceof Stop) throw new ContentBoundError(problem!);
    throw err;
  }
}
