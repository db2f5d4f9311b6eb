// Public unsubscribe pages: GET /u/{token} shows a confirmation page with a button;
// POST /u/{token} unsubscribes — both the button and RFC 8058 one-click (mail clients POST
// "List-Unsubscribe=One-Click" as a form, urlencoded or multipart, with no cookies and no page view).
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../domain/errors.ts';
import * as unsubscribes from '../../domain/feedback/unsubscribe.ts';
import { escapeHtml } from '../../mail/render.ts';
import { readUnsubscribeToken } from '../../mail/unsubscribe.ts';

export async function unsubscribePages(app: FastifyInstance) {
  // one-click POSTs may come as multipart/form-data or text/plain: accept any body, we never read it
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.get('/u/:token', async (req, reply) => {
    const token = readUnsubscribeToken(app.config.secret, (req.params as { token: string }).token);
    const target = token && (await unsubscribes.describe(app.db, token).catch(notFoundAsUndefined));
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!target) return reply.code(404).send(invalidPage());
    if (target.status === 'unsubscribed')
      return page(
        'Unsubscribed',
        `<p><strong>${escapeHtml(target.email)}</strong> is unsubscribed from ${escapeHtml(target.account_name)}.</p>`,
      );
    return page(
      'Unsubscribe',
      `<p>Stop receiving emails from <strong>${escapeHtml(target.account_name)}</strong> at <strong>${escapeHtml(target.email)}</strong>?</p>` +
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
    );
  });

  app.post('/u/:token', async (req, reply) => {
    const token = readUnsubscribeToken(app.config.secret, (req.params as { token: string }).token);
    const done = token && (await unsubscribes.unsubscribe(app.db, token).catch(notFoundAsUndefined));
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!done) return reply.code(404).send(invalidPage());
    return page(
      'Unsubscribed',
      `<p><strong>${escapeHtml(done.email)}</strong> will not receive these emails any more.</p>`,
    );
  });
}

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof NotFound) return undefined;
  throw err;
}

function invalidPage(): string {
  return page(
    'Link not valid',
    '<p>This unsubscribe link is not valid (any more). If you keep receiving emails, reply to one of them.</p>',
  );
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${title}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}` +
    `button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style></head><body><h1>${title}</h1>${body}</body></html>`
  );
}
