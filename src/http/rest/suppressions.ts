// /api/v1/external/suppressions: our addition to the spec's REST surface, the account's suppression list
// (list, add one, add a CSV, remove, export). Scopes subscribers:read / subscribers:write: the list is
// about the account's subscribers' addresses, and the spec names no scope of its own for it.
import { Readable } from 'node:stream';
import * as suppressions from '../../domain/subscribers/suppressions.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, listed, ok } from './envelope.ts';
import { deleteOperation, ID, type Resource } from './operation.ts';

/** The largest CSV body accepted: 50,000 addresses of a usual length fit well inside it. */
const CSV_BODY_LIMIT = 4 * 1024 * 1024;

export const suppressionRoutes: Resource = {
  async setup(app) {
    // only in this plugin: the CSV upload is the one REST body that is not JSON
    app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
  },
  operations: [
    {
      method: 'get',
      path: '/suppressions',
      operationId: 'listSuppressions',
      tag: 'Suppressions',
      summary: 'List the suppression list',
      scope: 'subscribers:read',
      spec: false,
      query: suppressions.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('suppressions', r.Suppression) },
      handler: async ({ app, req }) => {
        const page = await suppressions.list(app.db, req.key.accountId, req.query);
        return listed('suppressions', page);
      },
    },
    {
      method: 'post',
      path: '/suppressions',
      operationId: 'addSuppression',
      tag: 'Suppressions',
      summary: 'Suppress one address',
      scope: 'subscribers:write',
      spec: false,
      body: suppressions.NewSuppression,
      success: { status: 201, description: 'Suppressed', schema: okOf(r.Suppression) },
      handler: async ({ app, req, reply }) => {
        const input = jsonBody(req.body);
        return reply.code(201).send(ok(await suppressions.add(app.db, app.config.secret, req.key.accountId, input)));
      },
    },
    {
      method: 'post',
      path: '/suppressions/import',
      operationId: 'importSuppressions',
      tag: 'Suppressions',
      summary: 'Suppress the addresses of a CSV',
      description: 'The CSV as a text/csv body, or JSON `{"csv": "…"}`.',
      scope: 'subscribers:write',
      spec: false,
      upload: 'csv',
      success: { status: 200, description: 'What was added', schema: okOf(r.SuppressionCsvResult) },
      handler: async ({ app, req }) => {
        return ok(await suppressions.addCsv(app.db, app.config.secret, req.key.accountId, csvBody(req.body)));
      },
    },
    {
      method: 'get',
      path: '/suppressions/export',
      operationId: 'exportSuppressions',
      tag: 'Suppressions',
      summary: 'Export the suppression list as CSV',
      scope: 'subscribers:read',
      spec: false,
      success: { status: 200, description: 'The CSV, streamed', csv: true },
      handler: async ({ app, req, reply }) => {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="suppressions.csv"')
          .send(Readable.from(suppressions.exportCsv(app.db, req.key.accountId)));
      },
    },
    deleteOperation({
      path: '/suppressions/{id}',
      operationId: 'deleteSuppression',
      tag: 'Suppressions',
      summary: 'Remove an address from the suppression list',
      scope: 'subscribers:write',
      params: ID('suppression'),
      thing: 'Suppression',
      notFound: suppressions.NOT_FOUND,
      removed: 'Removed',
      remove: suppressions.remove,
    }),
  ],
};

/** A text/csv body as sent, or JSON {"csv": "…"}; anything else reaches the domain as not a CSV. */
function csvBody(body: unknown): unknown {
  if (body !== null && typeof body === 'object' && 'csv' in body) return (body as { csv: unknown }).csv;
  return body;
}
