// The block document the visual editor produces (content_format "blocks"): its types, a new block of each
// kind with sensible defaults, and reading a stored content_source back. The server validates the same
// shape with zod and renders it (document → MJML → HTML); the editor never renders email HTML itself.
// Kept free of React so pages can use it without loading the editor.

export type Align = 'left' | 'center' | 'right';

/** Links a mail can carry: web, mail and Liquid (a merge tag such as {{ unsubscribe_url }}). */
export const SAFE_HREF = /^(https?:\/\/|mailto:|\{\{)/i;
export interface BlockStyle {
  /** top, right, bottom, left in px (0-200) */
  padding?: [number, number, number, number];
  background?: string;
  color?: string;
  align?: Align;
  fontFamily?: string;
  fontSize?: number;
}
export interface GlobalStyle {
  width: number;
  background: string;
  contentBackground: string;
  fontFamily: string;
  textColor: string;
  linkColor: string;
}
export type Network = 'facebook' | 'x' | 'instagram' | 'linkedin' | 'youtube' | 'tiktok' | 'website';

interface Base {
  id: string;
  style?: BlockStyle;
}
export type HeadingBlock = Base & { type: 'heading'; text: string; level: 1 | 2 | 3 };
export type TextBlock = Base & { type: 'text'; html: string };
export type ImageBlock = Base & {
  type: 'image';
  src: string;
  alt: string;
  href?: string;
  width?: number;
  imageId?: string;
};
export type ButtonBlock = Base & { type: 'button'; text: string; href: string; color?: string; textColor?: string };
export type ColumnsBlock = Base & { type: 'columns'; columns: Block[][] };
export type DividerBlock = Base & { type: 'divider'; color?: string; thickness?: number };
export type SpacerBlock = Base & { type: 'spacer'; height: number };
export type SocialBlock = Base & { type: 'social'; links: { network: Network; url: string }[] };
export type HtmlBlock = Base & { type: 'html'; html: string };
export type FooterBlock = Base & { type: 'footer'; text?: string };

export type Block =
  | HeadingBlock
  | TextBlock
  | ImageBlock
  | ButtonBlock
  | ColumnsBlock
  | DividerBlock
  | SpacerBlock
  | SocialBlock
  | HtmlBlock
  | FooterBlock;
export type BlockType = Block['type'];

export interface BlockDocument {
  version: 1;
  style: GlobalStyle;
  blocks: Block[];
}

export const NETWORKS: Network[] = ['facebook', 'x', 'instagram', 'linkedin', 'youtube', 'tiktok', 'website'];

export const DEFAULT_STYLE: GlobalStyle = {
  width: 600,
  background: '#f4f4f5',
  contentBackground: '#ffffff',
  fontFamily: 'Helvetica, Arial, sans-serif',
  textColor: '#1f2937',
  linkColor: '#2563eb',
};

/** Fonts that every mail client has, offered in the style pickers (free text is not: it renders nowhere). */
export const FONTS: { label: string; value: string }[] = [
  { label: 'Helvetica / Arial', value: 'Helvetica, Arial, sans-serif' },
  { label: 'Georgia', value: 'Georgia, "Times New Roman", serif' },
  { label: 'Verdana', value: 'Verdana, Geneva, sans-serif' },
  { label: 'Trebuchet', value: '"Trebuchet MS", Tahoma, sans-serif' },
  { label: 'Courier', value: '"Courier New", Courier, monospace' },
];

/** The palette, in the order it shows, with what each block is for (the palette's hint and its name). */
export const BLOCK_KINDS: { type: BlockType; label: string; hint: string }[] = [
  { type: 'heading', label: 'Heading', hint: 'A title or section heading' },
  { type: 'text', label: 'Text', hint: 'Paragraphs with bold, links, lists and colour' },
  { type: 'image', label: 'Image', hint: 'An uploaded image or one from the library' },
  { type: 'button', label: 'Button', hint: 'A call to action that links somewhere' },
  { type: 'columns', label: 'Columns', hint: 'Two or three blocks side by side' },
  { type: 'divider', label: 'Divider', hint: 'A horizontal line' },
  { type: 'spacer', label: 'Spacer', hint: 'Empty space' },
  { type: 'social', label: 'Social links', hint: 'Links to your profiles' },
  { type: 'html', label: 'HTML', hint: 'Your own HTML (scripts are removed)' },
  { type: 'footer', label: 'Footer', hint: 'Your address and the unsubscribe link' },
];

export const labelOf = (type: BlockType) => BLOCK_KINDS.find((k) => k.type === type)?.label ?? type;

/** A block id unique within the document (the schema allows up to 64 characters). */
export function newId(): string {
  return `b${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export function newBlock(type: BlockType, columns = 2): Block {
  const id = newId();
  switch (type) {
    case 'heading':
      return { id, type, text: 'Your headline', level: 1 };
    case 'text':
      return { id, type, html: '<p>Write something your readers will enjoy.</p>' };
    case 'image':
      return { id, type, src: '', alt: '' };
    case 'button':
      return { id, type, text: 'Read more', href: 'https://', style: { align: 'center' } };
    case 'columns':
      return {
        id,
        type,
        columns: Array.from({ length: columns }, () => [newBlock('text')]),
      };
    case 'divider':
      return { id, type, color: '#e5e7eb', thickness: 1 };
    case 'spacer':
      return { id, type, height: 24 };
    case 'social':
      return { id, type, links: [{ network: 'website', url: 'https://' }] };
    case 'html':
      return { id, type, html: '<p>Your HTML</p>' };
    case 'footer':
      return { id, type, text: 'You receive this because you subscribed.' };
  }
}

export function emptyDocument(): BlockDocument {
  return { version: 1, style: { ...DEFAULT_STYLE }, blocks: [] };
}

/** A stored content_source as a document; anything unreadable starts an empty one (the server refuses bad ones). */
export function readDocument(source: string | null | undefined): BlockDocument {
  if (!source?.trim()) return emptyDocument();
  try {
    const d = JSON.parse(source) as Partial<BlockDocument>;
    if (!d || typeof d !== 'object' || !Array.isArray(d.blocks)) return emptyDocument();
    return { version: 1, style: { ...DEFAULT_STYLE, ...d.style }, blocks: d.blocks as Block[] };
  } catch {
    return emptyDocument();
  }
}

export const writeDocument = (d: BlockDocument) => JSON.stringify(d);

/** Nothing written yet: switching to another format or applying a template loses nothing. */
export function isEmptyDocument(source: string | null | undefined): boolean {
  return readDocument(source).blocks.length === 0;
}

/** A copy of a block (and of the blocks inside its columns) with fresh ids, for "Duplicate". */
export function cloneBlock(b: Block): Block {
  const copy = structuredClone(b);
  copy.id = newId();
  if (copy.type === 'columns') copy.columns = copy.columns.map((col) => col.map(cloneBlock));
  return copy;
}

/** Where a block sits: the top level (column undefined) or inside a columns block's column. */
export interface Place {
  parent?: string;
  column?: number;
}

/** Finds a block anywhere in the document, with the list it sits in. */
export function findBlock(blocks: Block[], id: string): { block: Block; list: Block[]; place: Place } | undefined {
  for (const b of blocks) {
    if (b.id === id) return { block: b, list: blocks, place: {} };
    if (b.type === 'columns')
      for (const [i, col] of b.columns.entries()) {
        const inner = col.find((x) => x.id === id);
        if (inner) return { block: inner, list: col, place: { parent: b.id, column: i } };
      }
  }
  return undefined;
}

/** The document with one block replaced (wherever it is) by `update(block)`; other blocks keep their identity. */
export function mapBlock(blocks: Block[], id: string, update: (b: Block) => Block | null): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.id === id) {
      const next = update(b);
      if (next) out.push(next);
    } else if (b.type === 'columns' && b.columns.some((col) => col.some((x) => x.id === id)))
      out.push({ ...b, columns: b.columns.map((col) => mapBlock(col, id, update)) });
    else out.push(b);
  }
  return out;
}

/** Inserts `block` in the list at `place` at `index` (the end when past it). */
export function insertAt(blocks: Block[], place: Place, index: number, block: Block): Block[] {
  if (!place.parent) return [...blocks.slice(0, index), block, ...blocks.slice(index)];
  // columns do not nest: a columns block dropped in a column goes after the columns block instead
  if (block.type === 'columns') {
    const at = blocks.findIndex((b) => b.id === place.parent);
    return insertAt(blocks, {}, at + 1, block);
  }
  return blocks.map((b) =>
    b.id === place.parent && b.type === 'columns'
      ? {
          ...b,
          columns: b.columns.map((col, i) =>
            i === place.column ? [...col.slice(0, index), block, ...col.slice(index)] : col,
          ),
        }
      : b,
  );
}

/** Moves a block to `place`/`index` (index counted in the list without the moved block). */
export function moveBlock(blocks: Block[], id: string, place: Place, index: number): Block[] {
  const found = findBlock(blocks, id);
  if (!found) return blocks;
  if (place.parent === id) return blocks;
  const without = mapBlock(blocks, id, () => null);
  return insertAt(without, place, index, found.block);
}

/** Every field's text in one string (for search-free checks like "is there a footer / unsubscribe link"). */
export function hasFooter(d: BlockDocument): boolean {
  return d.blocks.some((b) => b.type === 'footer');
}
