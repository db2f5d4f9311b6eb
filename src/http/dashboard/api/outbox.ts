// /app/api/outbox: mail captured while SMTP_URL is unset, newest first. A message's HTML is
// served on its own URL under a CSP sandbox with no network access, so opening it runs no script and
// loads no tracking pixel (viewing the outbox must not count as an open).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import * as outbox from '../../../domain/campaigns/outbox.ts';
import { ok, parse, pathId } from '../../rest/envelope.ts';

const Page = z.object({
  page: z.coerce.number().int().min(1, 'Page must be a positive integer').default(1),
  per_page: z.coerce.number().int().min(1, 'per_page must be a positive integer').default(25).transform((n) => Math.min(n, 100)),
});

const MESSAGE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; sandbox; base-uri 'none'; form-action 'none'";

export async function outboxRoutes(app: FastifyInstance) {
  app.get('/outbox', async (req) => ok(await outbox.list(app.db, req.member.accountId, parse(Page, req.query))));

  app.get('/outbox/:id', async (req) => ok(await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'))));

  app.get('/outbox/:id/html', async (req, reply) => {
    const message = await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'));
    const body = message.html ?? `<pre style="white-space:pre-wrap;font:14px/1.5 monospace">${escapeHtml(message.text ?? '')}</pre>`;
    return reply.header('content-security-policy', MESSAGE_CSP).header('x-content-type-options', 'nosniff').type('text/html; charset=utf-8').send(body);
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
