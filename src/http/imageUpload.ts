// The one reader of an image upload (multipart/form-data with one "file" part), shared by REST's
// POST /images and the dashboard's: the file is read whole into memory, bounded by MAX_IMAGE_BYTES at
// the multipart layer, so a 50 MB upload stops being read at 5 MB and is a 413 — never stored, never
// buffered whole. What the bytes are is the domain's to judge (images.inspect).
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Validation } from '../domain/errors.ts';
import { MAX_IMAGE_BYTES } from '../domain/images/images.ts';

export interface ImageFile {
  bytes: Buffer;
  filename: string | null;
}

const SEND_FILE = 'Send the image as multipart/form-data with a "file" part';

/** Registers multipart on the face's plugin and returns its reader of one image file. */
export async function imageUploads(app: FastifyInstance): Promise<(req: FastifyRequest) => Promise<ImageFile>> {
  await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 5, fieldSize: 1024 } });
  const tooLarge = () =>
    Object.assign(new Error(`The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`), { statusCode: 413 });
  return async (req) => {
    if (!req.isMultipart()) throw Validation.field('file', SEND_FILE);
    let file: ImageFile | undefined;
    try {
      for await (const part of req.parts()) {
        if (part.type === 'field') continue;
        if (part.fieldname !== 'file' || file) {
          part.file.resume();
          continue;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of part.file) chunks.push(chunk as Buffer);
        if (part.file.truncated) throw tooLarge();
        file = { bytes: Buffer.concat(chunks), filename: part.filename || null };
      }
    } catch (err) {
      const e = err as { code?: string; statusCode?: number };
      if (e.statusCode === 413) throw err;
      if (e.code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      if (e.code === 'FST_FILES_LIMIT' || e.code === 'FST_PARTS_LIMIT') throw Validation.field('file', 'Send one file');
      if (e.code === 'FST_FIELDS_LIMIT') throw Validation.field('file', 'Too many form fields');
      if (e.statusCode === undefined && err instanceof Error)
        throw Validation.field('file', `Malformed multipart body: ${err.message}`);
      throw err;
    }
    if (!file) throw Validation.field('file', SEND_FILE);
    return file;
  };
}
