// REST routes for imports: the spec's POST /subscribers/import-async (multipart, read by ../upload.ts), and
// our addition GET /imports and /imports/{job_id} to follow the job.
import type { FastifyInstance } from 'fastify';
import * as imports from '../../domain/imports/imports.ts';
import { csvUploads } from '../upload.ts';
import { ok, pagination } from './envelope.ts';
import { admit } from './idempotency.ts';

export async function importRoutes(app: FastifyInstance) {
  const readUpload = await csvUploads(app, {
    fields: 10,
    fieldSize: 1024 * 1024,
    messages: {
      notMultipart: 'Send the CSV as multipart/form-data with a "file" part',
      noFile: 'A CSV file is required (multipart part "file")',
      tooLarge: (limit) => `File is too large: the limit is ${limit} bytes (IMPORT_MAX_BYTES)`,
    },
  });

  app.post('/subscribers/import-async', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    const { upload, groupIds, sha256 } = await readUpload(req, req.key.accountId);
    if (!(await admit(app, req, reply, sha256, () => imports.discard(app.db, upload)))) return reply;
    const job = await imports.start(app.db, app.queue, upload, groupIds);
    return reply.code(200).send(ok(job));
  });

  app.get('/imports', { config: { scope: 'subscribers:read' } }, async (req) => {
    const page = await imports.list(app.db, req.key.accountId, req.query as imports.ListQuery);
    const shown = pagination(page);
    // an empty history has always answered one (empty) page, as the MCP meta does
    return ok({ imports: page.items, pagination: { ...shown, total_pages: Math.max(1, shown.total_pages) } });
  });

  app.get('/imports/:id', { config: { scope: 'subscribers:read' } }, async (req) => {
    return ok(await imports.get(app.db, req.key.accountId, (req.params as { id: string }).id));
  });
}
