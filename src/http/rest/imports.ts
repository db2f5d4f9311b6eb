// REST routes for imports: the spec's POST /subscribers/import-async (multipart), and our addition
// GET /imports and /imports/{job_id} to follow the job. Multipart is registered here only, with an
// explicit file size limit: @fastify/multipart's default silently cuts files at 1 MiB and answers 200.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import * as imports from '../../domain/imports/imports.ts';
import { Validation } from '../../domain/errors.ts';
import { ok } from './envelope.ts';

export async function importRoutes(app: FastifyInstance) {
  await app.register(multipart, { limits: { fileSize: app.config.IMPORT_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024 * 1024 } });

  app.post('/subscribers/import-async', { config: { scope: 'subscribers:write' } }, async (req, reply) => {
    if (!req.isMultipart()) throw Validation.field('file', 'Send the CSV as multipart/form-data with a "file" part');
    let upload: imports.Upload | undefined;
    let groupIds: string | undefined;
    try {
      for await (const part of req.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'group_ids') groupIds = String(part.value);
        } else if (part.fieldname !== 'file' || upload) {
          part.file.resume();
        } else {
          upload = await imports.stageFile(app.db, req.key.accountId, part.file, part.filename || null).catch((err) => {
            if (part.file.truncated) throw tooLarge(app.config.IMPORT_MAX_BYTES);
            throw err;
          });
          if (part.file.truncated) throw tooLarge(app.config.IMPORT_MAX_BYTES);
        }
      }
      if (!upload) throw Validation.field('file', 'A CSV file is required (multipart part "file")');
    } catch (err) {
      if (upload) await imports.discard(app.db, upload);
      if ((err as { code?: string }).code === 'FST_FILES_LIMIT' || (err as { code?: string }).code === 'FST_PARTS_LIMIT') throw Validation.field('file', 'Send one file');
      // busboy rejects a body it cannot read (no boundary, cut short) with a plain Error: the client's fault
      if (isMalformedMultipart(err)) throw Validation.field('file', `Malformed multipart body: ${(err as Error).message}`);
      throw err;
    }
    const job = await imports.start(app.db, app.queue, upload, groupIds);
    return reply.code(200).send(ok(job));
  });

  app.get('/imports', { config: { scope: 'subscribers:read' } }, async (req) => {
    const { imports: items, meta } = await imports.list(app.db, req.key.accountId, req.query as imports.ListQuery);
    // the same pagination object as the spec's subscriber list
    return ok({ imports: items, pagination: { current_page: meta.current_page, total_pages: meta.last_page, total_count: meta.total, per_page: meta.per_page } });
  });

  app.get('/imports/:id', { config: { scope: 'subscribers:read' } }, async (req) => {
    return ok(await imports.get(app.db, req.key.accountId, (req.params as { id: string }).id));
  });
}

function tooLarge(limit: number) {
  return Object.assign(new Error(`File is too large: the limit is ${limit} bytes (IMPORT_MAX_BYTES)`), { statusCode: 413 });
}

function isMalformedMultipart(err: unknown): boolean {
  if (!(err instanceof Error) || (err as { statusCode?: number }).statusCode !== undefined) return false;
  return /^(Multipart: |Unexpected end of (form|multipart)|Malformed part header)/.test(err.message);
}
