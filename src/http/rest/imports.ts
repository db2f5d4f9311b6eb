// REST routes for imports: the spec's POST /subscribers/import-async (multipart, read by ../upload.ts), and
// our addition GET /imports and /imports/{job_id} to follow the job.
import type { FastifyInstance } from 'fastify';
import * as imports from '../../domain/imports/imports.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { pathParam } from '../params.ts';
import { csvUploads } from '../upload.ts';
import { listed, ok } from './envelope.ts';
import { admit } from './idempotency.ts';
import { planLimit, type Resource } from './operation.ts';

/** The upload reader of each plugin instance (multipart is registered on it in setup). */
const readers = new WeakMap<FastifyInstance, Awaited<ReturnType<typeof csvUploads>>>();

export const importRoutes: Resource = {
  async setup(app) {
    readers.set(
      app,
      await csvUploads(app, {
        fields: 10,
        fieldSize: 1024 * 1024,
        messages: {
          notMultipart: 'Send the CSV as multipart/form-data with a "file" part',
          noFile: 'A CSV file is required (multipart part "file")',
          tooLarge: (limit) => `File is too large: the limit is ${limit} bytes (IMPORT_MAX_BYTES)`,
        },
      }),
    );
  },
  operations: [
    {
      method: 'post',
      path: '/subscribers/import-async',
      operationId: 'importSubscribers',
      tag: 'Imports',
      summary: 'Import subscribers from a CSV file',
      description:
        'multipart/form-data: `file` (CSV with an `email` column) and optional `group_ids` (a JSON array of group ids). The job runs in the background; follow it with GET /imports/{id}.',
      scope: 'subscribers:write',
      spec: true,
      upload: 'multipart',
      success: { status: 200, description: 'The import has started', schema: okOf(r.ImportJob) },
      errors: [
        { ...planLimit, description: "The import would pass the plan's subscriber limit (data: the counts)." },
        { status: 413, description: 'The file is larger than IMPORT_MAX_BYTES.' },
        { status: 415, description: 'A body that is neither multipart/form-data nor JSON.' },
      ],
      handler: async ({ app, req, reply }) => {
        const { upload, groupIds, sha256 } = await readers.get(app)!(req, req.key.accountId);
        if (!(await admit(app, req, reply, sha256, () => imports.discard(app.db, upload)))) return reply;
        const job = await imports.start(app.db, app.queue, upload, groupIds);
        return reply.code(200).send(ok(job));
      },
    },
    {
      method: 'get',
      path: '/imports',
      operationId: 'listImports',
      tag: 'Imports',
      summary: 'List import jobs',
      scope: 'subscribers:read',
      spec: false,
      query: imports.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('imports', r.ImportJob) },
      handler: async ({ app, req }) => {
        const page = await imports.list(app.db, req.key.accountId, req.query);
        return listed('imports', page);
      },
    },
    {
      method: 'get',
      path: '/imports/{id}',
      operationId: 'getImport',
      tag: 'Imports',
      summary: 'Get an import job',
      scope: 'subscribers:read',
      spec: false,
      params: { id: "The job's id (job_id)." },
      success: { status: 200, description: 'The job', schema: okOf(r.ImportJob) },
      handler: async ({ app, req }) => {
        return ok(await imports.get(app.db, req.key.accountId, pathParam(req.params, 'id')));
      },
    },
  ],
};
