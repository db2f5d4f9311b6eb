// Templates as the domain sees them: a Liquid error is a Validation error naming the field it is in —
// subject, content_html, content_text, the names campaigns and the automations' send_email step share.
// A template is also rendered once when it is checked, for a sample subscriber: errors that only show when
// rendering (an endless loop, a template too large once rendered) are refused at save, not found at send.
import {
  compileTemplate,
  renderMessage,
  TemplateError,
  type CompiledTemplate,
  type CompileTracking,
  type MessageTemplate,
  type RenderContext,
  type RenderedMessage,
  type TemplatePart,
} from '../../mail/render.ts';
import { renderInPool, type PlainRenderContext } from '../../mail/renderPool.ts';
import { firstProblem, Validation, type FieldErrors } from '../errors.ts';

const FIELDS: Record<TemplatePart, string> = { subject: 'subject', html: 'content_html', text: 'content_text' };

/** Who a template is rendered for when no subscriber is named (the save-time check, a preview without one). */
export const SAMPLE_SUBSCRIBER = {
  id: '00000000-0000-4000-8000-000000000000',
  email: 'preview@example.com',
  first_name: 'Preview',
  custom_fields: {},
};

/** compileTemplate and one sample render, with a Liquid error thrown as Validation ("content_html: Template error: …"). */
export function compileChecked(t: MessageTemplate, tracking?: CompileTracking): CompiledTemplate {
  const template = checked(() => compileTemplate(t, tracking));
  renderChecked(template, { subscriber: SAMPLE_SUBSCRIBER, unsubscribeUrl: 'https://example.com/u' });
  return template;
}

/** renderMessage, with a render-time Liquid error (time or size limit) thrown as Validation. */
export function renderChecked(template: CompiledTemplate, ctx: RenderContext): RenderedMessage {
  return checked(() => renderMessage(template, ctx));
}

/**
 * compileChecked off the event loop, in the render pool (src/mail/renderPool.ts): what every save checks
 * (campaigns, automation steps), links rewritten as a send would. Parsing, html-to-text and rewriting of a
 * hostile document cost seconds; there they cost only its own request, refused at the pool's deadline.
 */
export async function checkInPool(t: MessageTemplate): Promise<void> {
  await renderCheckedInPool(t, { subscriber: SAMPLE_SUBSCRIBER, unsubscribeUrl: 'https://example.com/u' }, true);
}

/** The template compiled and rendered for `ctx` in the render pool (previews), errors as in compileChecked. */
export async function renderCheckedInPool(
  t: MessageTemplate,
  ctx: PlainRenderContext,
  trackLinks = false,
): Promise<RenderedMessage> {
  try {
    return await renderInPool(t, ctx, trackLinks);
  } catch (err) {
    throw asValidation(err);
  }
}

function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asValidation(err);
  }
}

function asValidation(err: unknown): unknown {
  if (!(err instanceof TemplateError)) return err;
  const fields: FieldErrors = {};
  for (const p of err.problems) fields[FIELDS[p.part]] = [`Template error: ${p.message}`];
  return new Validation(fields, firstProblem(fields));
}
