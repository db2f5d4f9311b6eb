// GET /images/{id}.{ext}: the pictures of block emails, for anyone (mail clients fetch them without
// signing in). An image never changes under its id, so it is cached for a year; nosniff and a
// sandboxing CSP keep a browser from treating the bytes as anything but the image type they were judged.
import type { FastifyInstance } from 'fastify';
import * as images from '../../domain/images/images.ts';
import { pathParam } from '../params.ts';

export async function imageRoutes(app: FastifyInstance) {
  app.get('/images/:file', async (req, reply) => {
    const image = await images.served(app.db, pathParam(req.params, 'file'));
    if (!image) return reply.code(404).header('x-content-type-options', 'nosniff').type('text/plain').send('Not found');
    return reply
      .header('content-type', image.content_type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', `"${image.sha256}"`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(Buffer.from(image.data));
  });
}
