// MJML → HTML for campaigns written in MJML. Liquid tags pass through untouched (MJML treats them as
// text), so the compiled HTML is then a Liquid template like any other. Strict validation: an unknown
// tag or a bad attribute is the author's error at save time, not a broken layout in someone's inbox.
// Compiling takes ~7 ms per section and far longer on a hostile document, so it runs in the render pool
// (renderPool.ts) with a deadline, after a shape check (htmlBounds.ts) that refuses the worst at once.
import { createRequire } from 'node:module';
import { runInPool, RenderDeadline } from './renderPool.ts';
import { checkHtmlBounds, ContentBoundError } from './htmlBounds.ts';

type Mjml2Html = (
  source: string,
  options: { validationLevel: 'strict' | 'skip'; keepComments: boolean },
) => Promise<{ html: string; errors: { formattedMessage?: string; message: string }[] }>;

/** An MJML source that does not compile; the message names the line and the element. */
export class MjmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MjmlError';
  }
}

/**
 * MJML → HTML in the render pool; an MjmlError for a source that does not compile, is too large or too slow.
 * `generated`: the source is the block renderer's, written from a document its schema checked, so MJML's
 * strict validation (a quarter of the compile) would only check our own renderer again; the shape bounds
 * still apply.
 */
export async function compileMjml(source: string, generated = false): Promise<string> {
  checkRoot(source);
  let reply;
  try {
    reply = await runInPool({ op: 'mjml', source, ...(generated && { generated }) });
  } catch (err) {
    if (err instanceof RenderDeadline) throw new MjmlError(`MJML too complex: ${err.message}`);
    throw err;
  }
  if ('html' in reply) return reply.html;
  throw new MjmlError('mjml' in reply ? reply.mjml : 'MJML could not be compiled');
}

// loaded on first use: mjml pulls in a large tree of modules that most processes never need
let compiler: Mjml2Html | undefined;

/** The shape check of an MJML source (htmlBounds.ts), as an MjmlError: before MJML is even loaded. */
export function checkMjmlShape(source: string): void {
  checkRoot(source);
  try {
    checkHtmlBounds(source, 'MJML');
  } catch (err) {
    if (err instanceof ContentBoundError) throw new MjmlError(err.message);
    throw err;
  }
}

/** The compile itself, on the calling thread: for the render pool's threads. */
export async function compileMjmlHere(source: string, generated = false): Promise<string> {
  checkMjmlShape(source);
  compiler ??= createRequire(import.meta.url)('mjml') as Mjml2Html;
  let result: Awaited<ReturnType<Mjml2Html>>;
  try {
    result = await compiler(source, { validationLevel: generated ? 'skip' : 'strict', keepComments: false });
  } catch (err) {
    const e = err as { errors?: { message: string; line?: number }[]; message: string };
    const first = e.errors?.[0];
    throw new MjmlError(first ? `Line ${first.line ?? '?'}: ${first.message}` : e.message.trim());
  }
  if (result.errors.length > 0) throw new MjmlError(result.errors[0]!.message);
  return result.html;
}

function checkRoot(source: string): void {
  if (!/<mjml[\s>]/i.test(source)) throw new MjmlError('MJML must start with an <mjml> root element');
}
