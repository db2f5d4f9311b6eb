// Public tracking routes, for campaign and automation emails: GET /t/o/{token} answers a 1×1
// GIF and counts an open; GET /t/c/{token}/{link} counts a click and redirects (302) to the email's STORED
// link number {link} — the URL never travels in the request, so this can never be used as an open
// redirect. Forged tokens record nothing; a forged click is a 404.
import type { FastifyInstance } from 'fastify';
import * as engagement from '../../domain/feedback/engagement.ts';
import { PIXEL_GIF, readTrackToken } from '../../mail/tracking.ts';
import { pathParam } from '../params.ts';

export async function trackingRoutes(app: FastifyInstance) {
  app.get('/t/o/:token', async (req, reply) => {
    const t = readTrackToken(app.config.secret, pathParam(req.params, 'token'));
    if (t) await engagement.recordOpen(app.db, t, { ip: req.ip, userAgent: req.headers['user-agent'] });
    // a forged or stale token still gets the pixel: a broken image in someone's inbox helps nobody
    return reply
      .header('content-type', 'image/gif')
      .header('cache-control', 'no-store, no-cache, must-revalidate, private')
      .send(PIXEL_GIF);
  });

  app.get('/t/c/:token/:link', async (req, reply) => {
    const [token, link] = [pathParam(req.params, 'token'), pathParam(req.params, 'link')];
    const t = readTrackToken(app.config.secret, token);
    const url =
      t && /^\d{1,5}$/.test(link)
        ? await engagement.recordClick(app.db, t, Number(link), { userAgent: req.headers['user-agent'] })
        : undefined;
    if (!url)
      return reply.code(404).type('text/html; charset=utf-8').send(page('Link not found', 'This link is not valid.'));
    return reply.header('cache-control', 'no-store').redirect(url, 302);
  });
}

function page(title: string, text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><p>${text}</p></body></html>`;
}
