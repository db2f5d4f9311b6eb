// The one reader of a CSV upload (multipart/form-data with a "file" part and an optional "group_ids" field),
// shared by REST's import-async and the dashboard's import page: the file streams into a staging import as
// it arrives. Multipart is registered with an explicit size limit, because @fastify/multipart's default
// silently cuts files at 1 MiB; a cut file is a 413 and never a partial import. Each face keeps its own
// wording and field limits; what is read, and what fails how, is the same.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Validation } from '../domain/errors.ts';
import * as imports from '../domain/imports/imports.ts';

export interface CsvUploadOptions {
  /** how many fields, and how large each, the form may send besides the file */
  fields: number;
  fieldSize: number;
  messages: {
    /** the request is not multipart/form-data */
    notMultipart: string;
    /** the multipart body has no "file" part */
    noFile: string;
    /** the file is over IMPORT_MAX_BYTES (the limit is appended) */
    tooLarge: (limit: number) => string;
  };
}

/** A staged upload, not started yet, and the group_ids field as sent (JSON text; imports.start parses it). */
export interface CsvUpload {
  upload: imports.Upload;
  groupIds: string | undefined;
}

/** Registers multipart on the face's plugin and returns its reader of one CSV upload. */
export async function csvUploads(
  app: FastifyInstance,
  o: CsvUploadOptions,
): Promise<(req: FastifyRequest, accountId: string) => Promise<CsvUpload>> {
  const limit = app.config.IMPORT_MAX_BYTES;
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: o.fields, fieldSize: o.fieldSize } });
  const tooLarge = () => Object.assign(new Error(o.messages.tooLarge(limit)), { statusCode: 413 });

  return async (req, accountId) => {
    if (!req.isMultipart()) throw Validation.field('file', o.messages.notMultipart);
    let upload: imports.Upload | undefined;
    let groupIds: string | undefined;
    try {
      for await (const part of req.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'group_ids') groupIds = String(part.value);
        } else if (part.fieldname !== 'file' || upload) {
          part.file.resume();
        } else {
          upload = await imports.stageFile(app.db, accountId, part.file, part.filename || null).catch((err) => {
            if (part.file.truncated) throw tooLarge();
            throw err;
          });
          if (part.file.truncated) throw tooLarge();
        }
      }
      if (!upload) throw Validation.field('file', o.messages.noFile);
    } catch (err) {
      if (upload) await imports.discard(app.db, upload);
      if (
        (err as { code?: string }).code === 'FST_FILES_LIMIT' ||
        (err as { code?: string }).code === 'FST_PARTS_LIMIT'
      )
        throw Validation.field('file', 'Send one file');
      // busboy rejects a body it cannot read (no boundary, cut short) with a plain Error: the client's fault
      if (isMalformedMultipart(err))
        throw Validation.field('file', `Malformed multipart body: ${(err as Error).message}`);
      throw err;
    }
    return { upload, groupIds };
  };
}

function isMalformedMultipart(err: unknown): boolean {
  if (!(err instanceof Error) || (err as { statusCode?: number }).statusCode !== undefined) return false;
  return /^(Multipart: |Unexpected end of (form|multipart)|Malformed part header)/.test(err.message);
}
