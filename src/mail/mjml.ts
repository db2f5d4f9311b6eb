// MJML → HTML for campaigns written in MJML. Liquid tags pass through untouched (MJML treats them as
// text), so the compiled HTML is then a Liquid template like any other. Strict validation: an unknown
// tag or a bad attribute is the author's error at save time, not a broken layout in someone's inbox.
import { createRequire } from 'node:module';

type Mjml2Html = (
  source: string,
  options: { validationLevel: 'strict'; keepComments: boolean },
) => Promise<{ html: string; errors: { formattedMessage?: string; message: string }[] }>;

/** An MJML source that does not compile; the message names the line and the element. */
export class MjmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MjmlError';
  }
}

// loaded on first use: mjml pulls in a large tree of modules that most processes never need
let compiler: Mjml2Html | undefined;

export async function compileMjml(source: string): Promise<string> {
  compiler ??= createRequire(import.meta.url)('mjml') as Mjml2Html;
  if (!/<mjml[\s>]/i.test(source)) throw new MjmlError('MJML must start with an <mjml> root element');
  let result: Awaited<ReturnType<Mjml2Html>>;
  try {
    result = await compiler(source, { validationLevel: 'strict', keepComments: false });
  } catch (err) {
    const e = err as { errors?: { message: string; line?: number }[]; message: string };
    const first = e.errors?.[0];
    throw new MjmlError(first ? `Line ${first.line ?? '?'}: ${first.message}` : e.message.trim());
  }
  if (result.errors.length > 0) throw new MjmlError(result.errors[0]!.message);
  return result.html;
}
