// Public unsubscribe pages: GET /u/{token} shows a confirmation page with a button;
// POST /u/{token} unsubscribes — both the button and RFC 8058 one-click (mail clients POST
// "List-Unsubscribe=One-Click" as a form, urlencoded or multipart, with no cookies and no page view).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFound } from '../../domain/errors.ts';
import * as unsubscribes from '../../domain/feedback/unsubscribe.ts';
import { escapeHtml } from '../../mail/render.ts';
import { readUnsubscribeToken } from '../../mail/unsubscribe.ts';
import { icon, publicPage } from './publicPage.ts';
import { pathParam } from '../params.ts';

// inline styles only, no scripts; the button posts back to the page itself
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'";

export async function unsubscribePages(app: FastifyInstance) {
  // one-click POSTs may come as multipart/form-data or text/plain: accept any body, we never read it
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.get('/u/:token', async (req, reply) => {
    const token = readUnsubscribeToken(app.config.secret, pathParam(req.params, 'token'));
    const target = token && (await unsubscribes.describe(app.db, token).catch(notFoundAsUndefined));
    htmlHeaders(reply);
    if (!target) return reply.code(404).send(invalidPage());
    const from = `<p class="mg-from">${escapeHtml(target.account_name)}</p>\n`;
    if (target.status === 'unsubscribed')
      return publicPage(
        'Unsubscribed',
        `${icon('done')}${from}<h1>Unsubscribed</h1>\n` +
          `<p><strong>${escapeHtml(target.email)}</strong> is unsubscribed from ${escapeHtml(target.account_name)}.</p>`,
      );
    return publicPage(
      'Unsubscribe',
      `${from}<h1>Unsubscribe</h1>\n` +
        `<p>Stop receiving emails from <strong>${escapeHtml(target.account_name)}</strong> at <strong>${escapeHtml(target.email)}</strong>?</p>\n` +
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>\n` +
        `<p class="mg-note">This stops every email from ${escapeHtml(target.account_name)} to this address.</p>`,
    );
  });

  app.post('/u/:token', async (req, reply) => {
    const token = readUnsubscribeToken(app.config.secret, pathParam(req.params, 'token'));
    const done = token && (await unsubscribes.unsubscribe(app.db, token).catch(notFoundAsUndefined));
    htmlHeaders(reply);
    if (!done) return reply.code(404).send(invalidPage());
    return publicPage(
      'Unsubscribed',
      `${icon('done')}<h1>Unsubscribed</h1>\n` +
        `<p><strong>${escapeHtml(done.email)}</strong> will not receive these emails any more.</p>\n` +
        `<p class="mg-note">Unsubscribed by mistake? Sign up again on the sender's website.</p>`,
    );
  });
}

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof NotFound) return undefined;
  throw err;
}

function htmlHeaders(reply: FastifyReply): void {
  reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

function invalidPage(): string {
  return publicPage(
    'Link not valid',
    `${icon('problem')}<h1>Link not valid</h1>\n` +
      '<p>This unsubscribe link is not valid (any more). If you keep receiving emails, reply to one of them.</p>',
  );
}
