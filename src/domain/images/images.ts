// The image library of an account: pictures uploaded for emails, kept in the database (bytea) so every
// instance — and PGlite — serves the same files at the same URL without shared disk or object storage.
// A file is judged by its bytes, never its name or the type the browser claimed: PNG, JPEG, GIF and WebP
// by their signatures, and the dimensions read from the file's own header (image-size). SVG (which can
// carry script), HTML dressed as a PNG and anything else is refused; so is a picture whose header claims
// more pixels than any email needs — what a decompression bomb looks like before anyone decodes it.
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { ImageType } from '../../db/schema/content.ts';
import { NotFound, Validation } from '../errors.ts';
import { offsetOf, pageFields, pageOf, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';

export const NOT_FOUND = 'Image not found';
/** The largest file accepted: far above any sensible email picture, far below what a database row should hold. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Bounds of what the header may claim: 10,000 px a side and 40 megapixels. */
export const MAX_SIDE = 10_000;
export const MAX_PIXELS = 40_000_000;

const EXTENSIONS: Record<ImageType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const BY_EXTENSION = Object.fromEntries(Object.entries(EXTENSIONS).map(([t, e]) => [e, t as ImageType]));

export interface Image {
  id: string;
  url: string;
  content_type: ImageType;
  width: number;
  height: number;
  size: number;
  filename: string | null;
  created_at: Date;
}

/** The type the bytes are, by their signature; undefined for anything else (SVG, HTML, BMP, …). */
export function sniff(bytes: Uint8Array): ImageType | undefined {
  const at = (offset: number, ascii: string) =>
    bytes.length >= offset + ascii.length && [...ascii].every((c, i) => bytes[offset + i] === c.charCodeAt(0));
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return 'image/gif';
  if (at(0, 'RIFF') && at(8, 'WEBP')) return 'image/webp';
  return undefined;
}

const SIZE_TYPES: Record<string, ImageType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The picture's type and dimensions, or the 400 that says why it is not one we take. */
export function inspect(bytes: Uint8Array): { content_type: ImageType; width: number; height: number } {
  if (bytes.length === 0) throw Validation.field('file', 'The file is empty');
  if (bytes.length > MAX_IMAGE_BYTES)
    throw Validation.field('file', `The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
  const content_type = sniff(bytes);
  if (!content_type) throw Validation.field('file', 'Only PNG, JPEG, GIF and WebP images can be uploaded');
  let dims: { width?: number; height?: number; type?: string };
  try {
    dims = imageSize(bytes);
  } catch {
    throw Validation.field('file', 'The image is damaged: its dimensions cannot be read');
  }
  const { width = 0, height = 0 } = dims;
  // the header parser and the signature must agree, or the file is something dressed as an image
  if (SIZE_TYPES[dims.type ?? ''] !== content_type || width < 1 || height < 1)
    throw Validation.field('file', 'The image is damaged: its dimensions cannot be read');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS)
    throw Validation.field(
      'file',
      `The image is ${width}×${height} pixels: at most ${MAX_SIDE} px a side and ${MAX_PIXELS / 1_000_000} megapixels`,
    );
  return { content_type, width, height };
}

export const urlOf = (publicUrl: string, id: string, type: ImageType) =>
  `${publicUrl}/images/${id}.${EXTENSIONS[type]}`;

/** Stores one uploaded picture (after inspect) and returns it with its public URL. */
export async function store(
  db: Db,
  publicUrl: string,
  accountId: string,
  bytes: Uint8Array,
  filename: string | null,
): Promise<Image> {
  const { content_type, width, height } = inspect(bytes);
  const row = await db
    .insertInto('images')
    .values({
      account_id: accountId,
      content_type,
      width,
      height,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      filename: filename ? filename.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) : null,
      data: bytes,
    })
    .returning(['id', 'created_at', 'filename'])
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    url: urlOf(publicUrl, row.id, content_type),
    content_type,
    width,
    height,
    size: bytes.length,
    filename: row.filename,
    created_at: row.created_at,
  };
}

export const ListQuery = z.object(pageFields());

export async function list(db: Db, publicUrl: string, accountId: string, query: unknown): Promise<Page<Image>> {
  const q = parseInput(ListQuery, query);
  const [rows, count] = await Promise.all([
    db
      .selectFrom('images')
      .select(['id', 'content_type', 'width', 'height', 'size', 'filename', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(q.per_page)
      .offset(offsetOf(q))
      .execute(),
    db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ]);
  return pageOf(
    rows.map((r) => ({ ...r, url: urlOf(publicUrl, r.id, r.content_type) })),
    q,
    Number(count.n),
  );
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  const r = await db.deleteFrom('images').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new NotFound(NOT_FOUND);
}

const FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(png|jpg|gif|webp)$/i;

/**
 * The bytes behind a public image URL (`<id>.<ext>`), for anyone: emails are read without signing in.
 * The extension must be the image's own, so one URL always means one type.
 */
export async function served(
  db: Db,
  file: string,
): Promise<{ content_type: ImageType; data: Uint8Array; sha256: string } | undefined> {
  const m = FILE.exec(file);
  if (!m) return undefined;
  const row = await db
    .selectFrom('images')
    .select(['content_type', 'data', 'sha256'])
    .where('id', '=', m[1]!.toLowerCase())
    .executeTakeFirst();
  if (!row || BY_EXTENSION[m[2]!.toLowerCase()] !== row.content_type) return undefined;
  return row;
}
