// /app/api/suppressions: the Suppressions page (list, add one, add a CSV read in the browser, remove,
// export). The same domain functions as REST /suppressions, behind the member's role instead of a key's
// scope; the CSV arrives as JSON {"csv": "…"} because every dashboard call is JSON.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import * as suppressions from '../../../domain/subscribers/suppressions.ts';
import { deleted, listed, jsonBody, ok, parse, pathId } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };
const CsvInput = z.object({ csv: z.unknown() });

export async function suppressionRoutes(app: FastifyInstance) {
  app.get('/suppressions', async (req) => {
    const query = req.query;
    return listed('suppressions', await suppressions.list(app.db, req.member.accountId, query));
  });

  app.post('/suppressions', edit, async (req, reply) => {
    const input = jsonBody(req.body);
    return reply.code(201).send(ok(await suppressions.add(app.db, app.config.secret, req.member.accountId, input)));
  });

  app.post('/suppressions/import', edit, async (req) => {
    const { csv } = parse(CsvInput, req.body);
    return ok(await suppressions.addCsv(app.db, app.config.secret, req.member.accountId, csv));
  });

  app.get('/suppressions/export', async (req, reply) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="suppressions.csv"')
      .send(Readable.from(suppressions.exportCsv(app.db, req.member.accountId))),
  );

  app.delete('/suppressions/:id', edit, async (req) => {
    const id = pathId(req.params, suppressions.NOT_FOUND);
    await suppressions.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Suppression', 'removed');
  });
}
