// The body of a render pool thread (renderPool.ts): the content steps whose cost on a hostile document has no
// useful bound in advance, run here so that the process's event loop never waits for them. Each task
// answers with a plain object (errors included): class instances do not survive the trip between threads.
import type { MessagePort } from 'node:worker_threads';
import { checkMjmlShape, compileMjmlHere, MjmlError } from './mjml.ts';
import { compileTemplate, renderMessage, TemplateError } from './render.ts';
import { extractLinks, rewriteHrefs } from './tracking.ts';
import type { RenderReply, RenderTask } from './renderPool.ts';

const EMPTY_MJML = '<mjml><mj-body></mj-body></mjml>';

// MJML's modules take seconds to load (2.9 s on the development machine); a thread loads them once, on its
// first MJML task, before its deadline starts
let mjmlLoaded: Promise<unknown> | undefined;

export async function runRenderTask({
  task,
  started,
}: {
  task: RenderTask;
  started: MessagePort;
}): Promise<RenderReply> {
  try {
    if (task.op === 'mjml') {
      checkMjmlShape(task.source); // a source refused by its shape never waits for MJML to load
      await (mjmlLoaded ??= compileMjmlHere(EMPTY_MJML).catch(() => undefined));
      begin(started);
      return { ok: true, html: await compileMjmlHere(task.source, task.generated) };
    }
    begin(started);
    const template = compileTemplate(task.template); // its shape checked first, then parsed
    // the links as a send weaves them in, so that content whose link rewriting is slow fails here, at save
    if (task.trackLinks) {
      extractLinks(task.template.html);
      rewriteHrefs(task.template.html, (url) => url);
    }
    return { ok: true, message: renderMessage(template, task.context) };
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, template: err.problems };
    if (err instanceof MjmlError) return { ok: false, mjml: err.message };
    throw err;
  } finally {
    started.close();
  }
}

// the deadline counts from here: what came before is the thread's own start, no fault of the content
function begin(started: MessagePort): void {
  started.postMessage('started');
}
