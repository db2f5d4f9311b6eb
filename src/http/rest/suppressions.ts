// /api/v1/external/suppressions: our addition to the spec's REST surface, the account's suppression list
// (list, add one, add a CSV, remove, export). Scopes subscribers:read / subscribers:write: the list is
// about the account's subscribers' addresses, and the spec names no scope of its own for it.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import * as suppressions from '../../domain/subscribers/suppressions.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

/** The largest CSV body accepted: 50,000 addresses of a usual length fit well inside it. */
const CSV_BODY_LIMIT = 4 * 1024 * 1024;

export async function suppressionRoutes(app: FastifyInstance) {
  // only in this plugin: the CSV upload is the one REST body that is not JSON
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );

  app.get('/suppressions', { config: { scope: 'subscribers:read' } }, async (req) => {
    const page = await suppressions.list(app.db, req.key.accountId, req.query as suppressions.ListQuery);
    return ok({ suppressions: page.items, pagination: pagination(page) });
  });

  app.post('/suppressions', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    const input = parse(suppressions.NewSuppression, req.body);
    return reply.code(201).send(ok(await suppressions.add(app.db, app.config.secret, req.key.accountId, input)));
  });

  app.post('/suppressions/import', { config: { scope: 'subscribers:write' } }, async (req) => {
    return ok(await suppressions.addCsv(app.db, app.config.secret, req.key.accountId, csvBody(req.body)));
  });

  app.get('/suppressions/export', { config: { scope: 'subscribers:read' } }, async (req, reply) => {
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="suppressions.csv"')
      .send(Readable.from(suppressions.exportCsv(app.db, req.key.accountId)));
  });

  app.delete('/suppressions/:id', { config: { scope: 'subscribers:write' } }, async (req) => {
    await suppressions.remove(app.db, req.key.accountId, pathId(req.params, suppressions.NOT_FOUND));
    return { success: true, message: 'Suppression removed successfully' };
  });
}

/** A text/csv body as sent, or JSON {"csv": "…"}; anything else reaches the domain as not a CSV. */
function csvBody(body: unknown): unknown {
  if (body !== null && typeof body === 'object' && 'csv' in body) return (body as { csv: unknown }).csv;
  return body;
}
