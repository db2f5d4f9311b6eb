// Templates as the domain sees them: a Liquid error is a Validation error naming the field it is in —
// subject, content_html, content_text, the names campaigns and the automations' send_email step share.
import {
  compileTemplate,
  TemplateError,
  type CompiledTemplate,
  type CompileTracking,
  type MessageTemplate,
  type TemplatePart,
} from '../../mail/render.ts';
import { firstProblem, Validation, type FieldErrors } from '../errors.ts';

const FIELDS: Record<TemplatePart, string> = { subject: 'subject', html: 'content_html', text: 'content_text' };

/** compileTemplate, with a Liquid error thrown as Validation ("content_html: Template error: …"). */
export function compileChecked(t: MessageTemplate, tracking?: CompileTracking): CompiledTemplate {
  try {
    return compileTemplate(t, tracking);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    const fields: FieldErrors = {};
    for (const p of err.problems) fields[FIELDS[p.part]] = [`Template error: ${p.message}`];
    throw new Validation(fields, firstProblem(fields));
  }
}
