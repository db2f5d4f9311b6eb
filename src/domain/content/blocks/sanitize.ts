// The two rich fields of a block document: a text block's HTML (a small set of formatting tags) and an
// html block's raw HTML (what email layouts use, minus anything active). Hostile markup — scripts,
// event handlers, javascript:/data: URLs — is refused at save with a 400 naming it (unsafeHtmlReason);
// and whatever is stored is cleaned again by sanitize-html when it is rendered, so even a document
// written straight into the database cannot put script into an email.
import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';

const ACTIVE_TAGS = new Set([
  'script',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'base',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'meta',
  'link',
  'svg',
  'math',
  'template',
  'noscript',
  'portal',
]);
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'background',
  'poster',
  'srcset',
  'data',
  'cite',
  'longdesc',
]);
const SAFE_SCHEMES = ['http', 'https', 'mailto'];
const ACTIVE_SCHEME = /^(javascript|vbscript|data|file):/i;
const ACTIVE_STYLE =
  /expression\s*\(|javascript:|vbscript:|behavior\s*:|-moz-binding|url\s*\(\s*['"]?\s*(javascript|data|vbscript):/i;

/** Why this HTML is refused (a script, an on* handler, an active URL or style), or undefined when it is not. */
export function unsafeHtmlReason(html: string): string | undefined {
  if (!/[<&]/.test(html)) return undefined;
  let reason: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (reason) return;
        if (ACTIVE_TAGS.has(name)) reason = `a <${name}> element`;
        for (const [attr, value] of Object.entries(attribs)) {
          if (reason) break;
          const compact = value.replace(/[\u0000-\u0020\u007f]+/g, '');
          if (/^on/i.test(attr)) reason = `an event handler (${attr})`;
          else if (URL_ATTRIBUTES.has(attr) && ACTIVE_SCHEME.test(compact))
            reason = `a ${compact.slice(0, compact.indexOf(':'))}: URL`;
          else if (attr === 'style' && ACTIVE_STYLE.test(value)) reason = 'an active style';
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return reason;
}

const hrefAllowed = (href: string) => {
  const h = href.trim();
  if (/[\u0000-\u001f\u007f]/.test(h)) return false;
  return h.startsWith('{{') || /^(https?|mailto):/i.test(h);
};

// links keep http(s), mailto and Liquid hrefs (the scheme check of schema.ts); anything else loses its href
const safeLink: sanitizeHtml.Transformer = (tagName, attribs) => {
  const { href, ...rest } = attribs;
  return { tagName, attribs: href !== undefined && hrefAllowed(href) ? { ...rest, href: href.trim() } : rest };
};

const TEXT_ALIGN = { 'text-align': [/^(left|right|center|justify)$/] };
const COLOR = [/^#[0-9a-fA-F]{3,8}$/, /^rgba?\(\s*[\d.\s,%]+\)$/];
const MARGIN = [/^0 0 12px$/];

const RICH_TEXT: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'a', 'ul', 'ol', 'li', 'span', 'h1', 'h2', 'h3'],
  allowedAttributes: {
    a: ['href', 'title', 'style'],
    span: ['style'],
    p: ['style'],
    li: ['style'],
    h1: ['style'],
    h2: ['style'],
    h3: ['style'],
  },
  allowedStyles: {
    a: { color: COLOR },
    span: { color: COLOR },
    p: { ...TEXT_ALIGN, margin: MARGIN },
    li: TEXT_ALIGN,
    h1: { ...TEXT_ALIGN, margin: MARGIN },
    h2: { ...TEXT_ALIGN, margin: MARGIN },
    h3: { ...TEXT_ALIGN, margin: MARGIN },
  },
  allowedSchemes: SAFE_SCHEMES,
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: { a: safeLink },
};

// inline styles the email needs on every paragraph, heading and link (written here, not inlined from a
// stylesheet by MJML: CSS inlining is most of MJML's time, and clients that drop <style> still see them)
const PARAGRAPH = 'margin:0 0 12px';
const withStyle = (attribs: sanitizeHtml.Attributes, style: string) => ({
  ...attribs,
  style: attribs.style ? `${style};${attribs.style}` : style,
});

/** A text block's HTML with only the formatting tags the editor makes, links in the document's colour. */
export function sanitizeRichText(html: string, linkColor: string): string {
  const block: sanitizeHtml.Transformer = (tagName, attribs) => ({ tagName, attribs: withStyle(attribs, PARAGRAPH) });
  return sanitizeHtml(html, {
    ...RICH_TEXT,
    transformTags: {
      a: (tagName, attribs) => {
        const link = safeLink(tagName, attribs);
        return { tagName, attribs: withStyle(link.attribs, `color:${linkColor}`) };
      },
      p: block,
      h1: block,
      h2: block,
      h3: block,
    },
  });
}

const RAW_TAGS = [
  ...sanitizeHtml.defaults.allowedTags,
  'img',
  'font',
  'center',
  'span',
  'div',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'colgroup',
  'col',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'u',
  's',
  'sup',
  'sub',
  'small',
];
const LAYOUT_ATTRIBUTES = [
  'style',
  'class',
  'align',
  'valign',
  'width',
  'height',
  'bgcolor',
  'color',
  'border',
  'dir',
  'lang',
  'title',
  'role',
];

const RAW_HTML: sanitizeHtml.IOptions = {
  allowedTags: RAW_TAGS,
  allowedAttributes: {
    '*': LAYOUT_ATTRIBUTES,
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'alt'],
    table: ['cellpadding', 'cellspacing'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    font: ['face', 'size'],
  },
  allowedSchemes: SAFE_SCHEMES,
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // style values are kept as written (emails need inline CSS) unless they try to run something
  transformTags: {
    '*': (tagName, attribs) => {
      const linked = tagName === 'a' ? safeLink(tagName, attribs) : { tagName, attribs };
      if (linked.attribs.style === undefined || !ACTIVE_STYLE.test(linked.attribs.style)) return linked;
      const { style: _active, ...rest } = linked.attribs;
      return { tagName, attribs: rest };
    },
  },
};

/** An html block's HTML: layout tags and inline styles kept; scripts, handlers, forms and active URLs removed. */
export function sanitizeRawHtml(html: string): string {
  return sanitizeHtml(html, RAW_HTML);
}
