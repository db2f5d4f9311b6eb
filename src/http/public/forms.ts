// Public form routes (no API key): GET /f/{id} hosted page (counts a view), POST /f/{id} submission
// (form-encoded or JSON; CORS open for embeds; at most 10 per minute per form and IP), OPTIONS preflight,
// and GET /f/confirm/{token} for double opt-in. Answers JSON when the caller asks for it, HTML otherwise.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { DomainError, Validation } from '../../domain/errors.ts';
import { fromStorageError } from '../../domain/storageErrors.ts';
import * as signups from '../../domain/forms/signups.ts';
import { checkInboxPage, formPage, MESSAGES, messagePage, PAGE_CSP } from './formPages.ts';

const SUBMISSIONS_PER_MINUTE = 10;

function wantsJson(req: FastifyRequest): boolean {
  const accept = String(req.headers.accept ?? '');
  if (accept.includes('text/html')) return false;
  return accept.includes('application/json') || String(req.headers['content-type'] ?? '').includes('application/json');
}

function cors(reply: FastifyReply): FastifyReply {
  return reply
    .header('Access-Control-Allow-Origin', '*')
    .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
    .header('Access-Control-Allow-Headers', 'Content-Type, Accept')
    .header('Access-Control-Max-Age', '86400');
}

function html(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', PAGE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .send(body);
}

function formId(params: unknown): string | undefined {
  const id = (params as { id?: unknown }).id;
  return typeof id === 'string' && z.guid().safeParse(id).success ? id.toLowerCase() : undefined;
}

export async function formPages(app: FastifyInstance) {
  const transport = app.transport;
  const limiter = new RateLimiterMemory({ keyPrefix: 'form_submit', points: SUBMISSIONS_PER_MINUTE, duration: 60 });

  app.setErrorHandler((raw: Error & { statusCode?: number }, req, reply) => {
    const err = fromStorageError(raw) ?? raw;
    const json = wantsJson(req);
    const [status, message] =
      err instanceof DomainError
        ? err.kind === 'not_found'
          ? [404, MESSAGES.notFound]
          : err.kind === 'limit_exceeded'
            ? [403, MESSAGES.full]
            : [400, err.message]
        : err.statusCode && err.statusCode < 500
          ? [err.statusCode, 'The request could not be read.']
          : [500, 'Something went wrong. Please try again later.'];
    if (status >= 500) req.log.error({ err }, 'form route failed');
    const error = err instanceof DomainError && err.kind === 'not_found' ? 'Form not found' : message;
    return json
      ? reply.code(status).send({ success: false, error })
      : html(reply, status, messagePage(status === 404 ? 'Form not found' : 'Sorry', message, 'problem'));
  });

  app.get('/f/confirm/:token', async (req, reply) => {
    const r = await signups.confirm(app.db, app.config, String((req.params as { token: string }).token));
    if (!('form' in r))
      return html(
        reply,
        400,
        messagePage('Link not valid', r.status === 'expired' ? MESSAGES.expiredLink : MESSAGES.invalidLink, 'problem'),
      );
    if (r.form.redirect_url) return reply.redirect(r.form.redirect_url, 303);
    return html(reply, 200, messagePage('Subscription confirmed', r.form.success_message, 'done'));
  });

  app.get('/f/:id', async (req, reply) => {
    const id = formId(req.params);
    if (!id) return html(reply, 404, messagePage('Form not found', MESSAGES.notFound));
    const { form, types } = await signups.view(app.db, id);
    return html(reply, 200, formPage(form, `/f/${form.id}`, types));
  });

  app.options('/f/:id', async (_req, reply) => cors(reply).code(204).send());

  app.post('/f/:id', async (req, reply) => {
    cors(reply);
    const json = wantsJson(req);
    const id = formId(req.params);
    if (!id)
      return json
        ? reply.code(404).send({ success: false, error: 'Form not found' })
        : html(reply, 404, messagePage('Form not found', MESSAGES.notFound));
    try {
      await limiter.consume(`${id}|${req.ip}`);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retry = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      reply.header('Retry-After', retry);
      return json
        ? reply.code(429).send({ success: false, error: 'Too many requests', retry_after: retry })
        : html(reply, 429, messagePage('Please wait', MESSAGES.tooMany));
    }
    let result: signups.SubmitResult;
    try {
      result = await signups.submit(app.db, { transport, config: app.config }, id, req.body);
    } catch (err) {
      if (!(err instanceof Validation)) throw err;
      if (json) return reply.code(400).send({ success: false, error: err.message, data: err.fields });
      const { form, types } = await signups.find(app.db, id);
      return html(
        reply,
        400,
        formPage(form, `/f/${form.id}`, types, { values: textValues(req.body), errors: err.fields }),
      );
    }
    const { form } = result;
    if (result.status === 'mail_failed') {
      req.log.warn({ formId: form.id, error: result.error }, 'confirmation mail not sent');
      return json
        ? reply.code(503).send({ success: false, error: MESSAGES.mailFailed })
        : html(reply, 503, messagePage('Sorry', MESSAGES.mailFailed));
    }
    const pending = form.double_opt_in; // an ignored (honeypot) submission answers like the real thing
    const message = pending ? MESSAGES.checkInbox : form.success_message;
    if (json)
      return {
        success: true,
        message,
        confirmation_required: pending,
        ...(!pending && form.redirect_url && { redirect_url: form.redirect_url }),
      };
    if (!pending && form.redirect_url) return reply.redirect(form.redirect_url, 303);
    return html(reply, 200, pending ? checkInboxPage(form.name) : messagePage('Thank you', message, 'done'));
  });
}

/** What the visitor typed, to re-fill the form after an error (strings only; rendering escapes them). */
function textValues(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : (v ?? ''))]),
  );
}
