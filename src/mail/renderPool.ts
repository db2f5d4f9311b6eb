// The render pool: worker threads (piscina) for the content steps that can take more than a few
// milliseconds on a hostile document — MJML compile, and the save-time and preview compile of a template
// (Liquid parse, link rewriting, html-to-text of the whole document, one render). The event loop hands
// the work over and waits for an answer without doing it, so a slow document delays only its own request;
// a task that runs past its deadline has its thread stopped and is answered with a RenderDeadline.
// Per-recipient rendering during a send does not come here: a send renders from a template compiled
// once (validated here when it was saved), and a thread hop per message would cost more than the render.
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import {
  TemplateError,
  type MessageTemplate,
  type RenderedMessage,
  type RenderSubscriber,
  type TemplatePart,
} from './render.ts';

export const POOL_LIMITS = {
  /** milliseconds one task may run once a thread has started it */
  deadlineMs: 1_500,
  /** milliseconds a task may wait for a thread (one starting, or others running) before it is refused */
  queueMs: 30_000,
  /** heap of one thread: a document that needs more is refused, the process is not at risk */
  heapMb: 256,
};

/** Everything a render in the pool sees of its context: plain data (no functions cross threads). */
export interface PlainRenderContext {
  subscriber: RenderSubscriber;
  campaign?: { id: string; name: string };
  unsubscribeUrl: string;
}

export type RenderTask =
  /** `generated`: MJML the block renderer wrote from a checked document, compiled without MJML's validation */
  | { op: 'mjml'; source: string; generated?: boolean }
  /** compile `template` and render it for `context`; `trackLinks` also runs a send's link rewriting */
  | { op: 'message'; template: MessageTemplate; context: PlainRenderContext; trackLinks?: boolean };

export type RenderReply =
  | { ok: true; html: string }
  | { ok: true; message: RenderedMessage }
  | { ok: false; template: { part: TemplatePart; message: string }[] }
  | { ok: false; mjml: string };

/** A task that ran past its deadline (its thread was stopped), waited too long for one, or outgrew its heap. */
export class RenderDeadline extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderDeadline';
  }
}

let pool: Piscina | undefined;

// made on first use: most processes (a worker-only instance, most tests) never render content this way
function thePool(): Piscina {
  return (pool ??= new Piscina({
    filename: new URL('./renderThread.mjs', import.meta.url).href,
    minThreads: 0,
    // two at least, so that one slow document does not queue every other save behind it
    maxThreads: Math.max(2, Math.min(4, availableParallelism())),
    // a thread costs ~0.5 s of CPU to start (TypeScript, Liquid, html-to-text) and seconds more once it has
    // loaded MJML: an idle one is kept a while for the next save, then ends and gives its memory back
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: POOL_LIMITS.heapMb },
    atomics: 'disabled',
  }));
}

const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en')} s`;

/** Runs one task in the pool within POOL_LIMITS; throws RenderDeadline when a limit is crossed. */
export async function runInPool(task: RenderTask): Promise<RenderReply> {
  const abort = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let why = `the service is busy: no render thread was free within ${seconds(POOL_LIMITS.queueMs)}; try again`;
  let timer = setTimeout(() => abort.abort(), POOL_LIMITS.queueMs);
  port1.once('message', () => {
    clearTimeout(timer);
    why = `processing it took longer than ${seconds(POOL_LIMITS.deadlineMs)}`;
    timer = setTimeout(() => abort.abort(), POOL_LIMITS.deadlineMs);
  });
  try {
    return (await thePool().run(
      { task, started: port2 },
      { transferList: [port2], signal: abort.signal },
    )) as RenderReply;
  } catch (err) {
    if (abort.signal.aborted) throw new RenderDeadline(why);
    if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw new RenderDeadline(`processing it needs more than ${POOL_LIMITS.heapMb} MB of memory`);
    throw err;
  } finally {
    clearTimeout(timer);
    port1.close();
  }
}

/**
 * compileTemplate and renderMessage for `context`, in the pool: the save-time check of a template (for the
 * sample subscriber) and every preview. Throws a TemplateError, as the same steps on the event loop would;
 * a deadline crossed is a TemplateError on the HTML.
 */
export async function renderInPool(
  template: MessageTemplate,
  context: PlainRenderContext,
  trackLinks = false,
): Promise<RenderedMessage> {
  let reply: RenderReply;
  try {
    reply = await runInPool({ op: 'message', template, context, trackLinks });
  } catch (err) {
    if (err instanceof RenderDeadline)
      throw new TemplateError([{ part: 'html', message: `Content too complex: ${err.message}` }]);
    throw err;
  }
  if ('message' in reply) return reply.message;
  if ('template' in reply) throw new TemplateError(reply.template);
  throw new Error('The render pool answered a message task with another kind of reply');
}
