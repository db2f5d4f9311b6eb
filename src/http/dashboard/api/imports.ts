// /app/api/imports: the import history (imports.list / imports.get) and a CSV upload from the page, through
// the same reader and domain path as REST's import-async (../../upload.ts → start; the worker does the rest).
import type { FastifyInstance } from 'fastify';
import { previewHeader } from '../../../domain/imports/headerPreview.ts';
import * as imports from '../../../domain/imports/imports.ts';
import { jsonBody, listed, ok } from '../../rest/envelope.ts';
import { csvUploads } from '../../upload.ts';
import { pathParam } from '../../params.ts';

const CHOOSE_FILE = 'Choose a CSV file to upload';

export async function importRoutes(app: FastifyInstance) {
  const readUpload = await csvUploads(app, {
    fields: 5,
    fieldSize: 64 * 1024,
    messages: {
      notMultipart: CHOOSE_FILE,
      noFile: CHOOSE_FILE,
      tooLarge: (limit) => `File is too large: the limit is ${limit} bytes`,
    },
  });

  app.get('/imports', async (req) => {
    return listed('imports', await imports.list(app.db, req.member.accountId, req.query));
  });

  app.get('/imports/:id', async (req) =>
    ok(await imports.get(app.db, req.member.accountId, pathParam(req.params, 'id'))),
  );

  // what the import would do with a file's columns: its first line mapped by the import's header rule
  app.post('/imports/columns', async (req) =>
    ok(await previewHeader(app.db, req.member.accountId, jsonBody(req.body))),
  );

  app.post('/imports', { config: { permission: 'edit' } }, async (req, reply) => {
    const { upload, groupIds } = await readUpload(req, req.member.accountId);
    return reply.code(201).send(ok(await imports.start(app.db, app.queue, upload, groupIds)));
  });
}
