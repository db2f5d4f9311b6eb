// What a campaign's author wrote (content_source, in content_format 'html' or 'mjml') and what is sent
// (content_html). MJML is compiled here, on save, so everything downstream — Liquid checks, link
// tracking, sending, the REST and MCP faces — only ever sees HTML. Writing content_html directly (REST,
// MCP) makes the campaign HTML again, with that HTML as its source.
import { z } from 'zod';
import { compileMjml, MjmlError } from '../../mail/mjml.ts';
import { Validation } from '../errors.ts';

export const FORMATS = ['html', 'mjml'] as const;
export type ContentFormat = (typeof FORMATS)[number];

export const ContentFields = {
  content_format: z.enum(FORMATS, { error: `content_format must be one of: ${FORMATS.join(', ')}` }).optional(),
  content_source: z.string().max(1_000_000).nullable().optional(),
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
    const content_source = input.content_source !== undefined ? input.content_source : (before?.content_source ?? null);
    return { content_format, content_source, content_html: await toHtml(content_format, content_source) };
  }
  if (html !== undefined) return { content_format: 'html', content_source: html, content_html: html };
  return {};
}

/** The HTML a source stands for; an MJML error is a Validation on content_source with MJML's message. */
export async function toHtml(format: ContentFormat, source: string | null): Promise<string | null> {
  if (format === 'html' || !source?.trim()) return source;
  try {
    return await compileMjml(source);
  } catch (err) {
    if (err instanceof MjmlError) throw Validation.field('content_source', `MJML error: ${err.message}`);
    throw err;
  }
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
