// /app/api/outbox: mail captured while SMTP_URL is unset, newest first. A message's HTML is
// served on its own URL under a CSP sandbox with no network access, so opening it runs no script and
// loads no tracking pixel (viewing the outbox must not count as an open).
import type { FastifyInstance } from 'fastify';
import * as outbox from '../../../domain/campaigns/outbox.ts';
import { PageQuery } from '../../../domain/paging.ts';
import { metaOf } from '../../mcp/pagination.ts';
import { ok, parse, pathId } from '../../rest/envelope.ts';

const MESSAGE_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; sandbox; base-uri 'none'; form-action 'none'";

export async function outboxRoutes(app: FastifyInstance) {
  // the dashboard reads a list's meta as MCP tools return it: { current_page, last_page, per_page, total }
  app.get('/outbox', async (req) => {
    const page = await outbox.list(app.db, req.member.accountId, parse(PageQuery, req.query));
    return ok({ messages: page.items, meta: metaOf(page) });
  });

  app.get('/outbox/:id', async (req) =>
    ok(await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'))),
  );

  app.get('/outbox/:id/html', async (req, reply) => {
    const message = await outbox.get(app.db, req.member.accountId, pathId(req.params, 'Message not found'));
    const body =
      message.html ??
      `<pre style="white-space:pre-wrap;font:14px/1.5 monospace">${escapeHtml(message.text ?? '')}</pre>`;
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
