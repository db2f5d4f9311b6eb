// The block document: what the visual editor stores as a campaign's (or automation email's, or
// confirmation mail's) content_source when content_format is 'blocks'. It is data, not markup: every
// field has a type and a bound, so a document that parses here can only become the HTML render.ts makes
// of it. Free text is escaped there; the two rich fields (text.html, html.html) go through sanitize.ts.
// URLs are http(s), mailto or Liquid only, so no field can carry javascript: or data: into an email.
import { z } from 'zod';
import { Validation } from '../../errors.ts';
import { parseInput } from '../../validation.ts';
import { unsafeHtmlReason } from './sanitize.ts';

/** Bounds of one document: its JSON text, and its blocks counted at every level. */
export const MAX_DOCUMENT_BYTES = 512 * 1024;
export const MAX_BLOCKS = 500;

const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Colours are #rrggbb');
// a CSS font stack: names, spaces, commas and quotes only, so it cannot close the style attribute it goes in
const FontFamily = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9 ,'-]+$/, 'fontFamily may contain letters, digits, spaces, commas, hyphens and quotes');

/** A link target: http(s) or mailto, or a Liquid expression filled at send time ({{ unsubscribe_url }}). */
export function isSafeUrl(url: string, schemes: readonly string[] = ['http:', 'https:', 'mailto:']): boolean {
  // control characters and whitespace inside a scheme are how "java\tscript:" slips past a naive check
  if (/[\u0000-\u001f\u007f]/.test(url)) return false;
  const u = url.trim();
  if (u.startsWith('{{')) return true;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(u)?.[1];
  return scheme !== undefined && schemes.includes(`${scheme.toLowerCase()}:`);
}

const Url = (what: string, schemes?: readonly string[]) =>
  z
    .string()
    .trim()
    .min(1, `${what} is required`)
    .max(2048, `${what} is at most 2048 characters`)
    .refine((u) => isSafeUrl(u, schemes), {
      message: `${what} must be an ${schemes ? 'http(s)' : 'http(s), mailto or Liquid'} URL`,
    });

const Html = (what: string) =>
  z
    .string()
    .max(100_000)
    .superRefine((html, ctx) => {
      const reason = unsafeHtmlReason(html);
      if (reason) ctx.addIssue({ code: 'custom', message: `${what} may not contain ${reason}` });
    });

export const BlockStyle = z.strictObject({
  padding: z
    .tuple(
      [0, 0, 0, 0].map(() => z.number().int().min(0).max(200)) as [z.ZodNumber, z.ZodNumber, z.ZodNumber, z.ZodNumber],
    )
    .optional(),
  background: Color.optional(),
  color: Color.optional(),
  align: z.enum(['left', 'center', 'right']).optional(),
  fontFamily: FontFamily.optional(),
  fontSize: z.number().int().min(8).max(72).optional(),
});
export type BlockStyle = z.output<typeof BlockStyle>;

const base = {
  id: z.string().min(1).max(64),
  style: BlockStyle.optional(),
};

export const SOCIAL_NETWORKS = ['facebook', 'x', 'instagram', 'linkedin', 'youtube', 'tiktok', 'website'] as const;

const Heading = z.strictObject({
  ...base,
  type: z.literal('heading'),
  text: z.string().max(2000),
  level: z.union([z.literal(1), z.literal(2), z.literal(3)]),
});
const Text = z.strictObject({ ...base, type: z.literal('text'), html: Html('Text') });
const Image = z.strictObject({
  ...base,
  type: z.literal('image'),
  src: Url('Image src', ['http:', 'https:']),
  alt: z.string().max(500),
  href: Url('Image link').optional(),
  width: z.number().int().min(1).max(1200).optional(),
  imageId: z.string().max(64).optional(),
});
const Button = z.strictObject({
  ...base,
  type: z.literal('button'),
  text: z.string().min(1, 'Button text is required').max(200),
  href: Url('Button link'),
  color: Color.optional(),
  textColor: Color.optional(),
});
const Divider = z.strictObject({
  ...base,
  type: z.literal('divider'),
  color: Color.optional(),
  thickness: z.number().int().min(1).max(10).optional(),
});
const Spacer = z.strictObject({ ...base, type: z.literal('spacer'), height: z.number().int().min(4).max(200) });
const Social = z.strictObject({
  ...base,
  type: z.literal('social'),
  links: z.array(z.strictObject({ network: z.enum(SOCIAL_NETWORKS), url: Url('Social link') })).max(10),
});
const RawHtml = z.strictObject({ ...base, type: z.literal('html'), html: Html('HTML') });
const Footer = z.strictObject({ ...base, type: z.literal('footer'), text: z.string().max(2000).optional() });

const BLOCK_TYPES = 'heading, text, image, button, columns, divider, spacer, social, html, footer';

/** The blocks a column may hold: every type but columns (nesting is one level deep). */
export const LeafBlock = z.discriminatedUnion(
  'type',
  [Heading, Text, Image, Button, Divider, Spacer, Social, RawHtml, Footer],
  {
    error: (issue) =>
      issue.code === 'invalid_union' && 'discriminator' in issue
        ? `Block type must be one of: ${BLOCK_TYPES} (columns only at the top level)`
        : undefined,
  },
);
export type LeafBlock = z.output<typeof LeafBlock>;

const Columns = z.strictObject({
  ...base,
  type: z.literal('columns'),
  columns: z
    .array(z.array(LeafBlock).max(MAX_BLOCKS))
    .min(2, 'columns has 2 or 3 columns')
    .max(3, 'columns has 2 or 3 columns'),
});

export const Block = z.discriminatedUnion(
  'type',
  [Heading, Text, Image, Button, Columns, Divider, Spacer, Social, RawHtml, Footer],
  {
    error: (issue) =>
      issue.code === 'invalid_union' && 'discriminator' in issue
        ? `Block type must be one of: ${BLOCK_TYPES}`
        : undefined,
  },
);
export type Block = z.output<typeof Block>;

export const DocumentStyle = z.strictObject({
  width: z.number().int().min(320).max(900).default(600),
  background: Color.default('#f4f4f5'),
  contentBackground: Color.default('#ffffff'),
  fontFamily: FontFamily.default('Helvetica, Arial, sans-serif'),
  textColor: Color.default('#1f2937'),
  linkColor: Color.default('#2563eb'),
});

export const BlockDocument = z
  .strictObject({
    version: z.literal(1, 'version must be 1'),
    style: DocumentStyle.default(DocumentStyle.parse({})),
    blocks: z.array(Block).max(MAX_BLOCKS, `A document has at most ${MAX_BLOCKS} blocks`),
  })
  .superRefine((doc, ctx) => {
    if (countBlocks(doc.blocks) > MAX_BLOCKS)
      ctx.addIssue({ code: 'custom', path: ['blocks'], message: `A document has at most ${MAX_BLOCKS} blocks` });
  });
export type BlockDocument = z.output<typeof BlockDocument>;

export function countBlocks(blocks: readonly Block[]): number {
  let n = 0;
  for (const b of blocks) {
    n++;
    if (b.type === 'columns') for (const col of b.columns) n += col.length;
  }
  return n;
}

/**
 * A document from its stored JSON text (or an object a caller sent), checked; a problem is a Validation
 * on `field` whose message names the block's place ("blocks.3.href: …").
 */
export function parseDocument(source: unknown, field = 'content_source'): BlockDocument {
  let value = source;
  if (typeof source === 'string') {
    // measured before parsing: a 10 MB document is refused without building it in memory
    if (Buffer.byteLength(source, 'utf8') > MAX_DOCUMENT_BYTES)
      throw Validation.field(field, `The block document is larger than ${MAX_DOCUMENT_BYTES / 1024} KB`);
    try {
      value = JSON.parse(source);
    } catch {
      throw Validation.field(field, 'The block document is not valid JSON');
    }
  } else if (Buffer.byteLength(documentSource(source, field), 'utf8') > MAX_DOCUMENT_BYTES) {
    throw Validation.field(field, `The block document is larger than ${MAX_DOCUMENT_BYTES / 1024} KB`);
  }
  try {
    return parseInput(BlockDocument, value);
  } catch (err) {
    if (!(err instanceof Validation)) throw err;
    const [path, messages] = Object.entries(err.fields)[0] ?? ['_', ['is invalid']];
    const message = `Block document: ${path === '_' ? '' : `${path}: `}${messages[0]}`;
    throw Validation.field(field, message);
  }
}

/**
 * A document as content_source text: the caller's JSON text kept as written, an object serialised. An
 * object nested deeper than serialising can follow (JSON.parse takes it, JSON.stringify does not) is
 * the caller's 400, not the server's stack overflow.
 */
export function documentSource(source: unknown, field = 'content_source'): string {
  if (typeof source === 'string') return source;
  try {
    return JSON.stringify(source ?? null);
  } catch (err) {
    if (err instanceof RangeError) throw Validation.field(field, 'The block document is nested too deeply');
    throw err;
  }
}
