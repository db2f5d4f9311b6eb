// What a campaign's author wrote (content_source, in content_format 'html', 'mjml' or 'blocks') and what
// is sent (content_html). MJML is compiled and a block document rendered here, on save, so everything
// downstream — Liquid checks, link tracking, sending, the REST and MCP faces — only ever sees HTML, and
// content_html is the rendered HTML kept per campaign: a send never renders blocks again. Writing
// content_html directly (REST, MCP) makes the campaign HTML again, with that HTML as its source.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { compileMjml, MjmlError } from '../../mail/mjml.ts';
import { renderDocument } from '../content/blocks/render.ts';
import { documentSource, parseDocument } from '../content/blocks/schema.ts';
import { Validation } from '../errors.ts';

export const FORMATS = ['html', 'mjml', 'blocks'] as const;
export type ContentFormat = (typeof FORMATS)[number];

export const ContentFields = {
  content_format: z.enum(FORMATS, { error: `content_format must be one of: ${FORMATS.join(', ')}` }).optional(),
  // a block document may come as its JSON text or as the object itself; it is stored as text
  content_source: z
    .union([z.string().max(1_000_000), z.record(z.string(), z.unknown())], {
      error: 'content_source must be text (or, for blocks, the document object)',
    })
    .nullable()
    .optional(),
};
export const ContentInput = z.object(ContentFields);
export type ContentInput = z.output<typeof ContentInput>;

export interface ContentColumns {
  content_html?: string | null;
  content_format?: ContentFormat;
  content_source?: string | null;
}

/**
 * The content columns a save writes: from the source when the caller gave a source or a format, else
 * from content_html when given, else none. `before` is the stored campaign, for a format or source the
 * update leaves out.
 */
export async function contentColumns(
  html: string | null | undefined,
  input: ContentInput | undefined,
  before?: { content_format: ContentFormat; content_source: string | null },
): Promise<ContentColumns> {
  if (input && (input.content_source !== undefined || input.content_format !== undefined)) {
    const content_format = input.content_format ?? before?.content_format ?? 'html';
    const given = input.content_source !== undefined ? input.content_source : (before?.content_source ?? null);
    if (given !== null && typeof given !== 'string' && content_format !== 'blocks')
      throw Validation.field('content_source', `content_source must be text for content_format ${content_format}`);
    const content_source = sourceText(given);
    return { content_format, content_source, content_html: await toHtml(content_format, content_source) };
  }
  if (html !== undefined) return { content_format: 'html', content_source: html, content_html: html };
  return {};
}

/** A source as given (a block document may be an object) as the text that is stored and rendered. */
export function sourceText(source: string | Record<string, unknown> | null | undefined): string | null {
  if (source === undefined || source === null) return null;
  return documentSource(source);
}

/** The HTML a source stands for; an MJML error is a Validation on content_source with MJML's message. */
export async function toHtml(format: ContentFormat, source: string | null): Promise<string | null> {
  if (format === 'html' || !source?.trim()) return source;
  if (format === 'blocks') return blocksHtml(source);
  try {
    return await compileMjml(source);
  } catch (err) {
    if (err instanceof MjmlError) throw Validation.field('content_source', `MJML error: ${err.message}`);
    throw err;
  }
}

// The last documents rendered, by a hash of their text: the editor's autosave and live preview send the
// same document again and again, and MJML takes tens of milliseconds per render.
const rendered = new Map<string, string>();
const RENDER_CACHE_SIZE = 64;

async function blocksHtml(source: string): Promise<string> {
  const doc = parseDocument(source);
  const key = createHash('sha256').update(JSON.stringify(doc)).digest('base64url');
  const hit = rendered.get(key);
  if (hit !== undefined) return hit;
  let html: string;
  try {
    html = await renderDocument(doc);
  } catch (err) {
    if (err instanceof MjmlError) throw Validation.field('content_source', `Block document: ${err.message}`);
    throw err;
  }
  if (rendered.size >= RENDER_CACHE_SIZE) rendered.delete(rendered.keys().next().value!);
  rendered.set(key, html);
  return html;
}

/**
 * A Liquid error found in the compiled HTML is the author's error in what they wrote: the faces that
 * take content_source name that field instead of content_html.
 */
export function asSourceError(err: unknown): unknown {
  if (!(err instanceof Validation) || !err.fields.content_html) return err;
  const { content_html, ...rest } = err.fields;
  return Validation.of({ content_source: content_html, ...rest });
}
