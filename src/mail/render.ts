// Turns a message template (Liquid in subject, HTML and optional text) into one subscriber's email
// compileTemplate validates once, at save time, so a bad template is rejected on create/update/schedule
// (TemplateError) and never a failure mid-send. Rendering can still fail for one recipient when it crosses
// a bound of liquid.ts (time, size); renderMessage reports that as a TemplateError naming the part.
// HTML output escapes every variable (subscriber data is untrusted); subject and text are not HTML.
import { compile as compileHtmlToText } from 'html-to-text';
import type { Template } from 'liquidjs';
import { compileFast, type FastTemplate } from './fastTemplate.ts';
import { checkHtmlBounds, ContentBoundError } from './htmlBounds.ts';
import { Budget, htmlEngine, parseBounded, renderBounded, textEngine } from './liquid.ts';
import { rewriteHrefs } from './tracking.ts';

// no upper-casing of headings: it would turn {{ subscriber.first_name }} into {{ SUBSCRIBER.FIRST_NAME }}
const toText = compileHtmlToText({
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', options: { uppercaseHeaderCells: false } },
  ],
});

export interface MessageTemplate {
  subject: string;
  html: string;
  /** plain-text part; derived from the HTML when absent */
  text?: string | null;
  /** hidden preheader shown by mail clients next to the subject */
  preview_text?: string | null;
}

export interface CompiledTemplate {
  readonly subject: Template[];
  readonly html: Template[];
  readonly text: Template[];
  readonly preview_text?: string;
  /** plain-concatenation renderers for simple templates (fastTemplate.ts); liquidjs otherwise */
  readonly fast: { subject?: FastTemplate; html?: FastTemplate; text?: FastTemplate };
}

/**
 * Tracking woven into the template once, at compile time (campaigns): each literal link that `linkIndex`
 * knows becomes `{{ tracking.click }}/<index>` (click tracking) and, with `opens`, an open pixel
 * `{{ tracking.open }}` goes before </body>; renderMessage then fills both from ctx.tracking — no
 * per-message HTML rewriting.
 */
export interface CompileTracking {
  /** absent: links are left as they are (click tracking off) */
  linkIndex?: (url: string) => number | undefined;
  /** the open pixel */
  opens?: boolean;
}

/** The variables a template sees as `subscriber.*`. */
export interface RenderSubscriber {
  id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  status?: string;
  custom_fields?: Record<string, unknown> | null;
  created_at?: Date | string;
}

export interface RenderContext {
  subscriber: RenderSubscriber;
  campaign?: { id: string; name: string };
  /** absolute URL from unsubscribeUrl() in unsubscribe.ts; also the `unsubscribe_url` variable */
  unsubscribeUrl: string;
  /** open-pixel URL (tracking.openUrl); omitted = no pixel */
  trackOpen?: string;
  /** maps each link of the rendered HTML to its tracked URL (return the url itself to keep it) */
  rewriteLinks?: (url: string) => string;
  /** for templates compiled with CompileTracking: the recipient's click base and pixel URLs */
  tracking?: { click: string; open: string };
  /** the `account` variable: who sends, and where they are (the automatic footer shows both) */
  account?: RenderAccount;
}

/** What templates see as `account`: the postal address on one line, '' when the account has none. */
export interface RenderAccount {
  name: string;
  postal_address: string;
}

export type TemplatePart = 'subject' | 'html' | 'text';

/** A template Liquid cannot parse or render: Liquid's message for each part that failed, in the order subject, html, text. */
export class TemplateError extends Error {
  constructor(readonly problems: { part: TemplatePart; message: string }[]) {
    super(`${problems[0]!.part}: ${problems[0]!.message}`);
    this.name = 'TemplateError';
  }
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
}

// appended when the template has no unsubscribe link of its own: who sends it and from where (a
// commercial email must carry the sender's postal address), and the way out
const FOOTER =
  '\n<p style="font-size:12px;line-height:1.5;color:#4b5563;text-align:center;margin-top:32px">' +
  '{{ account.name }}<br>{{ account.postal_address }}<br>' +
  'You receive this email because you subscribed. <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>\n';
const TEXT_FOOTER = '\n\n--\n{{ account.name }}\n{{ account.postal_address }}\nUnsubscribe: {{ unsubscribe_url }}\n';

/**
 * Parses subject, HTML and text once. Throws a TemplateError naming every part with a Liquid error.
 * Example: const t = compileTemplate({ subject, html: content_html }); renderMessage(t, ctx)
 */
export function compileTemplate(t: MessageTemplate, tracking?: CompileTracking): CompiledTemplate {
  checkShape(t.html);
  const problems: TemplateError['problems'] = [];
  const parse = (engine: typeof htmlEngine, part: TemplatePart, source: string): Template[] => {
    try {
      return parseBounded(engine, source);
    } catch (err) {
      problems.push({ part, message: (err as Error).message });
      return [];
    }
  };
  let body = t.html.includes('unsubscribe_url') ? t.html : withFooter(t.html);
  const linkIndex = tracking?.linkIndex;
  if (linkIndex)
    body = rewriteHrefs(body, (url) => {
      const idx = linkIndex(url);
      return idx === undefined ? url : `{{ tracking.click }}/${idx}`;
    });
  if (tracking?.opens) body = insertBeforeBodyClose(body, HAS_IMAGE.test(t.html) ? PIXEL : BACKGROUND_PIXEL);
  // the preheader is a variable, not text spliced into the template: preview_text is never parsed as Liquid
  const html = t.preview_text ? insertAfterBodyOpen(body, PREHEADER) : body;
  const textSource = t.text ? withTextFooter(t.text) : undefined;
  const compiled = {
    subject: parse(textEngine, 'subject', t.subject),
    html: parse(htmlEngine, 'html', html),
    text: textSource !== undefined ? parse(textEngine, 'text', textSource) : [],
    preview_text: t.preview_text ?? undefined,
    fast: {
      subject: compileFast(t.subject, false),
      html: compileFast(html, true),
      text: textSource !== undefined ? compileFast(textSource, false) : undefined,
    },
  };
  if (problems.length > 0) throw new TemplateError(problems);
  // the text part is derived from the HTML template once (Liquid survives html-to-text), not per message
  if (textSource === undefined) {
    const derived = derivedText(body);
    compiled.text = derived.templates;
    compiled.fast.text = derived.source === undefined ? undefined : compileFast(derived.source, false);
  }
  return compiled;
}

// before anything builds a tree of the HTML (link rewriting, html-to-text): a document nested 150,000
// levels deep would otherwise overflow html-to-text's stack after 30 s
function checkShape(html: string): void {
  try {
    checkHtmlBounds(html);
  } catch (err) {
    if (err instanceof ContentBoundError) throw new TemplateError([{ part: 'html', message: err.message }]);
    throw err;
  }
}

const PIXEL = '<img src="{{ tracking.open }}" width="1" height="1" alt="" style="display:block;border:0">';
/**
 * The pixel of a message without images of its own: a 1×1 cell's background (the attribute, the CSS and,
 * for Outlook's Word engine, VML), not an <img>. Spam filters read a short message whose only image is a
 * pixel as "image only" (SpamAssassin's HTML_IMAGE_ONLY_*, up to 1.8 points); a background is no image
 * to them, and mail clients load it like one.
 */
const BACKGROUND_PIXEL =
  '<table role="presentation" width="1" height="1" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">' +
  '<tr><td width="1" height="1" background="{{ tracking.open }}" ' +
  'style="background-image:url(\'{{ tracking.open }}\');width:1px;height:1px;font-size:1px;line-height:1px">&nbsp;' +
  '<!--[if gte mso 9]><v:rect xmlns:v="urn:schemas-microsoft-com:vml" fill="true" stroke="false" style="width:1px;height:1px">' +
  '<v:fill type="frame" src="{{ tracking.open }}" /></v:rect><![endif]--></td></tr></table>';
const HAS_IMAGE = /<img\b/i;
const PREHEADER = '<div style="display:none;max-height:0;overflow:hidden">{{ preview_text }}</div>';

function derivedText(html: string): { templates: Template[]; source?: string } {
  try {
    const source = toText(html);
    return { templates: parseBounded(textEngine, source), source };
  } catch {
    return { templates: [] }; // html-to-text mangled a tag: renderMessage falls back to converting each rendered HTML
  }
}

/** One subscriber's message. Accepts a compiled template (fast path) or the raw parts. */
export function renderMessage(template: CompiledTemplate | MessageTemplate, ctx: RenderContext): RenderedMessage {
  const t =
    'html' in template && typeof template.html === 'string'
      ? compileTemplate(template as MessageTemplate)
      : (template as CompiledTemplate);
  const scope = {
    subscriber: subscriberScope(ctx.subscriber),
    campaign: ctx.campaign ? { id: ctx.campaign.id, name: ctx.campaign.name } : {},
    unsubscribe_url: ctx.unsubscribeUrl,
    preview_text: t.preview_text ?? '',
    tracking: ctx.tracking ?? { click: '', open: '' },
    account: ctx.account ?? { name: '', postal_address: '' },
  };
  const budget = new Budget();
  const part = (name: TemplatePart, fast: FastTemplate | undefined, templates: Template[], escape: boolean) => {
    const out = fast?.(scope);
    if (out !== undefined) {
      budget.use(out.length);
      return out;
    }
    try {
      return renderBounded(escape ? htmlEngine : textEngine, templates, scope, budget);
    } catch (err) {
      throw new TemplateError([{ part: name, message: (err as Error).message }]);
    }
  };
  let html = part('html', t.fast.html, t.html, true);
  const text = t.text.length > 0 ? part('text', t.fast.text, t.text, false) : toText(html);
  if (ctx.rewriteLinks) html = rewriteHrefs(html, ctx.rewriteLinks);
  if (ctx.trackOpen)
    html = insertBeforeBodyClose(
      html,
      `<img src="${escapeHtml(ctx.trackOpen)}" width="1" height="1" alt="" style="display:block;border:0">`,
    );
  const subject = part('subject', t.fast.subject, t.subject, false)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  return { subject, html, text: text.trim() + '\n' };
}

function subscriberScope(s: RenderSubscriber) {
  return {
    id: s.id,
    email: s.email,
    first_name: s.first_name ?? '',
    last_name: s.last_name ?? '',
    phone: s.phone ?? '',
    status: s.status ?? 'active',
    custom_fields: { ...(s.custom_fields ?? {}) },
    created_at: s.created_at instanceof Date ? s.created_at.toISOString() : (s.created_at ?? ''),
  };
}

function withFooter(html: string): string {
  return insertBeforeBodyClose(html, FOOTER);
}

function withTextFooter(text: string): string {
  return text.includes('unsubscribe_url') ? text : text + TEXT_FOOTER;
}

function insertBeforeBodyClose(html: string, fragment: string): string {
  const i = html.search(/<\/body\s*>/i);
  return i < 0 ? html + fragment : html.slice(0, i) + fragment + html.slice(i);
}

function insertAfterBodyOpen(html: string, fragment: string): string {
  const m = /<body\b[^>]*>/i.exec(html);
  return m ? html.slice(0, m.index + m[0].length) + fragment + html.slice(m.index + m[0].length) : fragment + html;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
