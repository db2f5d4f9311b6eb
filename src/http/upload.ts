// The one reader of a CSV upload (multipart/form-data with a "file" part and an optional "group_ids" field),
// shared by REST's import-async and the dashboard's import page: the file streams into a staging import as
// it arrives. Multipart is registered with an explicit size limit, because @fastify/multipart's default
// silently cuts files at 1 MiB; a cut file is a 413 and never a partial import. A body the client broke is
// a 400, and so is a form field of another name, since a misspelt "group_ids" would otherwise import without
// its groups. Each face keeps its own wording and field limits; what is read, and what fails how, is the same.
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Validation } from '../domain/errors.ts';
import * as imports from '../domain/imports/imports.ts';
import { OPTION_FIELDS, parseOptions } from '../domain/imports/options.ts';

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
  /** sha256 of the file's bytes and the group_ids field: what makes two uploads the same request */
  sha256: string;
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
    const options: Record<string, string> = {};
    let refusal: Validation | undefined;
    const digest = createHash('sha256');
    // errors raised by the body itself (no boundary, cut short, a broken part header) are the client's;
    // they are told from ours by where they come from, not by their wording
    const fromBody = new WeakSet<object>();
    const parts = req.parts()[Symbol.asyncIterator]();
    const nextPart = () =>
      parts.next().catch((err) => {
        if (err instanceof Error && (err as { statusCode?: number }).statusCode === undefined) fromBody.add(err);
        throw err;
      });
    try {
      for (;;) {
        const next = await nextPart();
        if (next.done) break;
        const part = next.value;
        const isOption = (OPTION_FIELDS as readonly string[]).includes(part.fieldname);
        if (part.fieldname !== 'file' && part.fieldname !== 'group_ids' && !isOption)
          refusal ??= Validation.field(
            part.fieldname.slice(0, 64),
            `Unknown form field "${part.fieldname.slice(0, 64)}": send the CSV as "file" and the groups as "group_ids"`,
          );
        // the file is read as it arrives, with its options: they must come before it
        if (isOption && upload)
          refusal ??= Validation.field(part.fieldname, `Send "${part.fieldname}" before the file part`);
        if (part.type === 'field') {
          if (part.fieldname === 'group_ids') groupIds = String(part.value);
          else if (isOption) options[part.fieldname] = String(part.value);
        } else if (part.fieldname !== 'file' || upload || refusal || (refusal = optionsProblem(options))) {
          part.file.resume();
        } else {
          part.file.on('error', (err) => fromBody.add(err));
          // the file is hashed on its way to staging; its own error (or a premature close) reaches the
          // staging reader unchanged
          const hashing = Readable.from(hashed(part.file, digest), { objectMode: false });
          upload = await imports
            .stageFile(app.db, accountId, hashing, part.filename || null, options)
            .catch(async (err) => {
              if (part.file.truncated) throw tooLarge();
              // the multipart reader closed the file early (a form limit, the client gone): it gives the reason next
              if ((err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
                fromBody.add(err);
                await nextPart();
              }
              throw err;
            });
          if (part.file.truncated) throw tooLarge();
        }
      }
      if (refusal) throw refusal;
      if (!upload) throw Validation.field('file', o.messages.noFile);
    } catch (err) {
      if (upload) await imports.discard(app.db, upload);
      const code = (err as { code?: string }).code;
      if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') throw Validation.field('file', 'Send one file');
      if (code === 'FST_FIELDS_LIMIT') throw Validation.field('file', 'Too many form fields');
      if (fromBody.has(err as object))
        throw Validation.field('file', `Malformed multipart body: ${(err as Error).message}`);
      throw err;
    }
    const optionText = Object.keys(options).length > 0 ? `\0${JSON.stringify(options)}` : '';
    return { upload, groupIds, sha256: digest.update(`\0${groupIds ?? ''}${optionText}`).digest('hex') };
  };
}

/** Options that do not fit refuse the upload before its file is read (the file is drained, not staged). */
function optionsProblem(options: Record<string, string>): Validation | undefined {
  try {
    parseOptions(options);
    return undefined;
  } catch (err) {
    if (err instanceof Validation) return err;
    throw err;
  }
}

async function* hashed(file: AsyncIterable<Buffer>, digest: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of file) {
    digest.update(chunk);
    yield chunk;
  }
}
