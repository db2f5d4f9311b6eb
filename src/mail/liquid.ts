// The one Liquid engine pair every template goes through (campaigns, automation emails, subject lines).
// Templates are written by account users, so the engine must not be a way into the server: it reads no
// file, and one message's rendering is bounded in time and in size. A template that breaks a bound fails
// its own save, preview or recipient with a message saying which bound; the process carries on.
import { CaptureTag, Context, Liquid, Tag, toValue, toValueSync, type Emitter, type Template } from 'liquidjs';

/**
 * The bounds, measured on the 2-core development machine against a 60 KB newsletter with loops, filters
 * and a captured block (test/mail/render.test.ts): it parses in ~5 ms, renders in under 2 ms and produces
 * ~60,000 characters, so each bound is about a hundred times what a real newsletter needs.
 */
export const LIMITS = {
  /** characters of one part's source: the API's 1,000,000 for content, plus the footer, pixel and preheader added to it */
  sourceChars: 1_100_000,
  /**
   * Liquid tags and outputs in one part: liquidjs's parser slows down quadratically once a template has more
   * than about 16,000 tokens (a 1 MB template of `{{ a }}` took 30 s to parse); 5,000 stays clear of that
   */
  markup: 5_000,
  /** milliseconds to render one message, subject, HTML and text together */
  renderMs: 200,
  /** characters one message may produce or handle: its output, captured blocks, filter results and loop ranges */
  chars: 5_000_000,
};

const NO_FILES = 'is not available: a template cannot include other files';

// include, render and layout name a file to read; refusing them when the template is parsed makes a
// template that uses them a save-time error instead of a failure at send time (and nothing ever reads disk)
class NoFileTag extends Tag {
  constructor(...args: ConstructorParameters<typeof Tag>) {
    super(...args);
    throw new Error(`{% ${this.name} %} ${NO_FILES}`);
  }
  *render(): Generator<unknown, void, unknown> {}
}

// liquidjs renders a capture into a private buffer that no limit sees; this one counts it against the budget
class BoundedCapture extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const out = new BudgetEmitter(ctx.memoryLimit as unknown as Budget);
    yield this.liquid.renderer.renderTemplates(this.templates, ctx, out);
    ctx.bottom()[this.variable] = out.buffer;
  }
}

function engine(escape: boolean): Liquid {
  const liquid = new Liquid({
    strictFilters: true, // an unknown filter is a save-time error, not silently nothing
    ownPropertyOnly: true, // no reaching into prototypes (`constructor`, `__proto__`)
    templates: {}, // an in-memory file system with no file in it, should any path still ask for one
    parseLimit: LIMITS.sourceChars,
    ...(escape && { outputEscape: 'escape' as const }),
  });
  for (const name of ['include', 'render', 'layout']) liquid.registerTag(name, NoFileTag);
  liquid.registerTag('capture', BoundedCapture);
  return liquid;
}

export const htmlEngine = engine(true);
export const textEngine = engine(false);

/**
 * One message's allowance of time and characters, shared by its parts. It stands in for liquidjs's own
 * limiters (same `use`/`check` shape) so that the limits span the message, not each part separately.
 */
export class Budget {
  private used = 0;
  private readonly deadline = performance.now() + LIMITS.renderMs;

  /** liquidjs's memory limiter: charged by ranges and string and array filters, and by our emitters */
  use(chars: number): void {
    if (!(chars > 0)) return;
    this.used += chars;
    if (this.used > LIMITS.chars)
      throw new Error(
        `Template too large: a message may produce or handle at most ${LIMITS.chars.toLocaleString('en')} characters`,
      );
  }

  /** liquidjs's render limiter: called with the current time between template nodes */
  check(now: number): void {
    if (now > this.deadline) throw new Error(`Template too slow: a message must render within ${LIMITS.renderMs} ms`);
  }
}

class BudgetEmitter implements Emitter {
  buffer = '';
  constructor(private readonly budget: Budget) {}
  write(html: unknown): void {
    const s = stringify(html);
    this.budget.use(s.length);
    this.buffer += s;
  }
}

// liquidjs's own stringify (not exported): how an output's value prints
function stringify(value: unknown): string {
  const v = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(stringify).join('');
  return String(v);
}

/** liquid.parse, refusing first what would parse too slowly. */
export function parseBounded(liquid: Liquid, source: string): Template[] {
  let markup = 0;
  for (let i = source.indexOf('{'); i >= 0; i = source.indexOf('{', i + 1)) {
    const next = source.charCodeAt(i + 1);
    if ((next === 123 /* { */ || next === 37) /* % */ && ++markup > LIMITS.markup)
      throw new Error(
        `Template too complex: a part may hold at most ${LIMITS.markup.toLocaleString('en')} Liquid tags and outputs`,
      );
  }
  return liquid.parse(source);
}

/** Renders parsed templates within the message's budget; throws liquidjs's RenderError when a bound is crossed. */
export function renderBounded(liquid: Liquid, templates: Template[], scope: object, budget: Budget): string {
  const limiter = budget as unknown as Context['memoryLimit'];
  const ctx = new Context(
    scope,
    liquid.options,
    { sync: true },
    { memoryLimit: limiter, renderLimit: limiter, liquid },
  );
  const out = new BudgetEmitter(budget);
  toValueSync(liquid.renderer.renderTemplates(templates, ctx, out));
  return out.buffer;
}
