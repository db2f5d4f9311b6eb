// Public form routes (no API key): GET /f/{id or slug} hosted page (counts a view; ?embed=1 for the
// pop-up's frame), POST /f/{id or slug} submission (form-encoded or JSON; CORS open for embeds; at most 10
// per minute per form and IP), OPTIONS preflight, GET /f/{id or slug}/embed.js (the pop-up script),
// GET /f/assets/form.js (the hosted page's own script) and GET /f/confirm/{token} for double opt-in.
// Answers JSON when the caller asks for it, HTML otherwise.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { DomainError, Validation } from '../../domain/errors.ts';
import { fromStorageError } from '../../domain/storageErrors.ts';
import { DEFAULT_CONFIRMED, looksLikeSlug, resolved } from '../../domain/forms/design.ts';
import { popupScript } from '../../domain/forms/embed.ts';
import type { PublicRef } from '../../domain/forms/queries.ts';
import * as signups from '../../domain/forms/signups.ts';
import {
  checkInboxPage,
  FORM_PAGE_CSP,
  FORM_SCRIPT,
  FORM_SCRIPT_PATH,
  formPage,
  MESSAGES,
  messagePage,
  PAGE_CSP,
} from './formPages.ts';
import { pathParam } from '../params.ts';

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

function html(reply: FastifyReply, status: number, body: string, csp = PAGE_CSP) {
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .send(body);
}

/** The form a public path names: a UUID is its id, other text its slug; undefined when it can be neither. */
function formId(params: unknown): PublicRef | undefined {
  const id = (params as { id?: unknown }).id;
  if (typeof id !== 'string') return undefined;
  if (z.guid().safeParse(id).success) return id.toLowerCase();
  return looksLikeSlug(id) ? { slug: id.toLowerCase() } : undefined;
}

function embedded(query: unknown): boolean {
  return (query as { embed?: unknown } | undefined)?.embed === '1';
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
    const r = await signups.confirm(app.db, app.config, pathParam(req.params, 'token'));
    if (!('form' in r))
      return html(
        reply,
        400,
        messagePage('Link not valid', r.status === 'expired' ? MESSAGES.expiredLink : MESSAGES.invalidLink, 'problem'),
      );
    if (!r.form) return html(reply, 200, messagePage('Subscription confirmed', DEFAULT_CONFIRMED, 'done'));
    if (r.form.redirect_url) return reply.redirect(r.form.redirect_url, 303);
    const message = resolved(r.form.design, r.form.name).confirmed_message ?? r.form.success_message;
    return html(reply, 200, messagePage('Subscription confirmed', message, 'done'));
  });

  app.get(FORM_SCRIPT_PATH, async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .header('X-Content-Type-Options', 'nosniff')
      .send(FORM_SCRIPT),
  );

  app.get('/f/:id/embed.js', async (req, reply) => {
    const id = formId(req.params);
    const found = id && (await signups.find(app.db, id).catch(() => undefined));
    reply
      .type('text/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=300')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (!found) return reply.code(404).send('/* Mailgrove: form not found */\n');
    return reply.send(popupScript(found.form, app.config.publicUrl));
  });

  app.get('/f/:id', async (req, reply) => {
    const id = formId(req.params);
    if (!id) return html(reply, 404, messagePage('Form not found', MESSAGES.notFound));
    const { form, types } = await signups.view(app.db, id);
    const inFrame = embedded(req.query);
    const page = formPage(form, `/f/${form.id}${inFrame ? '?embed=1' : ''}`, types, {
      renderedAt: signups.renderedAt(app.config.secret),
      embedded: inFrame,
    });
    return html(reply, 200, page, FORM_PAGE_CSP);
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
      await limiter.consume(`${typeof id === 'string' ? id : `slug:${id.slug}`}|${req.ip}`);
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
      const values = textValues(req.body);
      return html(
        reply,
        400,
        formPage(form, `/f/${form.id}${embedded(req.query) ? '?embed=1' : ''}`, types, {
          values,
          errors: err.fields,
          renderedAt: values._ts,
          embedded: embedded(req.query),
        }),
        FORM_PAGE_CSP,
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
    const message = pending ? resolved(form.design, form.name).check_inbox_message : form.success_message;
    if (json)
      return {
        success: true,
        message,
        confirmation_required: pending,
        ...(!pending && form.redirect_url && { redirect_url: form.redirect_url }),
      };
    if (!pending && form.redirect_url) return reply.redirect(form.redirect_url, 303);
    return html(reply, 200, pending ? checkInboxPage(form.name, message) : messagePage('Thank you', message, 'done'));
  });
}

/** What the visitor typed, to re-fill the form after an error (strings only; rendering escapes them). */
function textValues(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : (v ?? ''))]),
  );
}
