// /app/api/outbox: mail captured while SMTP_URL is unset, newest first. A message's HTML is
// served on its own URL under a CSP sandbox with no network access, so opening it runs no script and
// loads no tracking pixel, and with its tracking and action links disarmed (messagePreview.ts), so
// viewing the outbox never counts as an open or a click, unsubscribes or confirms anyone.
import type { FastifyInstance } from 'fastify';
import * as outbox from '../../../domain/campaigns/outbox.ts';
import { listed, ok, pathId } from '../../rest/envelope.ts';
import { hideActionUrls, previewHtml } from './messagePreview.ts';

const MESSAGE_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; sandbox; base-uri 'none'; form-action 'none'";

export async function outboxRoutes(app: FastifyInstance) {
  app.get('/outbox', async (req) => listed('messages', await outbox.list(app.db, req.member.accountId, req.query)));

  app.get('/outbox/:id', async (req) => {
    const message = await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'));
    return ok({ ...message, text: message.text && hideActionUrls(message.text, app.config.publicUrl) });
  });

  app.get('/outbox/:id/html', async (req, reply) => {
    const message = await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'));
    const body = message.html
      ? previewHtml(message.html, app.config.publicUrl)
      : `<pre style="white-space:pre-wrap;font:14px/1.5 monospace">${escapeHtml(hideActionUrls(message.text ?? '', app.config.publicUrl))}</pre>`;
    return reply
      .header('content-security-policy', MESSAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(body);
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
