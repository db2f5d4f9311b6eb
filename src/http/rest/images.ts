// /api/v1/external/images: the account's image library for block emails (upload, list, delete). The
// upload is read by ../imageUpload.ts and judged by src/domain/images/images.ts; the image itself is
// served publicly at its url (../public/images.ts). Scopes campaigns:read / campaigns:write.
import type { FastifyInstance } from 'fastify';
import * as images from '../../domain/images/images.ts';
import { imageUploads, type ImageFile } from '../imageUpload.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { listed, ok } from './envelope.ts';
import { deleteOperation, ID, type Resource } from './operation.ts';

const readers = new WeakMap<
  FastifyInstance,
  (req: Parameters<Awaited<ReturnType<typeof imageUploads>>>[0]) => Promise<ImageFile>
>();

export const imageRoutes: Resource = {
  async setup(app) {
    readers.set(app, await imageUploads(app));
  },
  operations: [
    {
      method: 'post',
      path: '/images',
      operationId: 'uploadImage',
      tag: 'Images',
      summary: 'Upload an image for emails',
      description:
        'multipart/form-data with one `file` part: a PNG, JPEG, GIF or WebP of at most 5 MB, judged by its content. ' +
        '`url` is public (under PUBLIC_URL) and cached for a year; use it as an image block’s `src`.',
      scope: 'campaigns:write',
      spec: false,
      upload: 'multipart',
      success: { status: 201, description: 'Stored', schema: okOf(r.Image) },
      errors: [
        { status: 413, description: 'The file is larger than 5 MB.' },
        { status: 415, description: 'A body that is neither multipart/form-data nor JSON.' },
      ],
      handler: async ({ app, req, reply }) => {
        const file = await readers.get(app)!(req);
        const image = await images.store(app.db, app.config.publicUrl, req.key.accountId, file.bytes, file.filename);
        return reply.code(201).send(ok(image));
      },
    },
    {
      method: 'get',
      path: '/images',
      operationId: 'listImages',
      tag: 'Images',
      summary: 'List the image library',
      scope: 'campaigns:read',
      spec: false,
      query: images.ListQuery,
      success: { status: 200, description: 'One page, newest first', schema: pageOf('images', r.Image) },
      handler: async ({ app, req }) =>
        listed('images', await images.list(app.db, app.config.publicUrl, req.key.accountId, req.query)),
    },
    deleteOperation({
      path: '/images/{id}',
      operationId: 'deleteImage',
      tag: 'Images',
      summary: 'Delete an image (emails already sent with it show a broken image)',
      scope: 'campaigns:write',
      params: ID('image'),
      thing: 'Image',
      notFound: images.NOT_FOUND,
      remove: images.remove,
    }),
  ],
};
