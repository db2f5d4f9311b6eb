// /app/api/imports: the import history (imports.list / imports.get) and a CSV upload from the page, through
// the same domain path as REST's import-async (stageFile → start; the worker does the rest). Multipart is
// registered here with an explicit size limit: @fastify/multipart otherwise cuts files at 1 MiB silently.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { Validation } from '../../../domain/errors.ts';
import * as imports from '../../../domain/imports/imports.ts';
import { ok, parse } from '../../rest/envelope.ts';

export async function importRoutes(app: FastifyInstance) {
  await app.register(multipart, { limits: { fileSize: app.config.IMPORT_MAX_BYTES, files: 1, fields: 5, fieldSize: 64 * 1024 } });

  app.get('/imports', async (req) => ok(await imports.list(app.db, req.member.accountId, parse(imports.ListQuery, req.query))));

  app.get('/imports/:id', async (req) => ok(await imports.get(app.db, req.member.accountId, (req.params as { id: string }).id)));

  app.post('/imports', { config: { permission: 'edit' } }, async (req, reply) => {
    if (!req.isMultipart()) throw Validation.field('file', 'Choose a CSV file to upload');
    const file = await req.file();
    if (!file || file.fieldname !== 'file') throw Validation.field('file', 'Choose a CSV file to upload');
    const field = file.fields.group_ids;
    const groupIds = imports.parseGroupIds(field && 'value' in field ? String(field.value) : undefined);
    const upload = await imports.stageFile(app.db, req.member.accountId, file.file, file.filename || null);
    if (file.file.truncated) {
      await imports.discard(app.db, upload);
      return reply.code(413).send({ success: false, error: `File is too large: the limit is ${app.config.IMPORT_MAX_BYTES} bytes` });
    }
    return reply.code(201).send(ok(await imports.start(app.db, app.queue, upload, groupIds)));
  });
}
