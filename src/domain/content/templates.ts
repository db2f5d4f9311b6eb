// Templates: the starters every account has (starters.ts) and the block documents an account saved,
// from a document or from a block campaign. A new campaign can start from either (template_id).
// The same list serves campaigns, automation emails and confirmation mails; `kind` filters saved ones.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { TemplateKind } from '../../db/schema/content.ts';
import { NotFound, Validation } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { renderDocument } from './blocks/render.ts';
import { parseDocument, type BlockDocument } from './blocks/schema.ts';
import { starterById, starters } from './starters.ts';

export const NOT_FOUND = 'Template not found';
export const KINDS = ['campaign', 'automation', 'confirmation'] as const;

export interface Template {
  /** a UUID: fixed for starters, the row's for saved templates */
  id: string;
  /** a starter's word ("newsletter"), which template_id takes too; null for saved templates */
  key: string | null;
  name: string;
  /** a starter every account has, or one this account saved */
  kind: 'starter' | 'saved';
  /** what it was saved for (saved templates); starters suit every kind */
  used_for: TemplateKind | null;
  description: string | null;
  document: BlockDocument;
  /** the rendered email, for the gallery's thumbnails (when asked for) */
  thumbnail_html?: string;
  created_at: Date | null;
}

export const ListQuery = z.object({
  kind: z.enum(KINDS, { error: `kind must be one of: ${KINDS.join(', ')}` }).optional(),
  thumbnails: z
    .enum(['true', 'false'], { error: 'thumbnails must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});

export const NewTemplate = z
  .object({
    name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(255),
    kind: z.enum(KINDS, { error: `kind must be one of: ${KINDS.join(', ')}` }).optional(),
    document: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    campaign_id: z.guid('campaign_id must be a UUID').optional(),
  })
  .refine((t) => (t.document === undefined) !== (t.campaign_id === undefined), {
    message: 'Give either document or campaign_id',
    path: ['document'],
  });
export type NewTemplate = z.input<typeof NewTemplate>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// starters never change while the process runs: each is rendered once, on the first gallery that shows it
const starterHtml = new Map<string, Promise<string>>();

export async function list(db: Db, accountId: string, query: unknown): Promise<Template[]> {
  const q = parseInput(ListQuery, query);
  const rows = await db
    .selectFrom('content_templates')
    .select(['id', 'name', 'kind', 'document', 'created_at'])
    .where('account_id', '=', accountId)
    .$if(q.kind !== undefined, (qb) => qb.where('kind', '=', q.kind!))
    .orderBy('created_at', 'desc')
    .limit(500)
    .execute();
  const out: Template[] = [
    ...starters(q.kind).map((s) => ({
      id: s.id,
      key: s.key,
      name: s.name,
      kind: 'starter' as const,
      used_for: null,
      description: s.description,
      document: s.document,
      created_at: null,
    })),
    ...rows.map((r) => ({
      id: r.id,
      key: null,
      name: r.name,
      kind: 'saved' as const,
      used_for: r.kind,
      description: null,
      document: parseDocument(r.document, 'document'),
      created_at: r.created_at,
    })),
  ];
  if (!q.thumbnails) return out;
  return Promise.all(
    out.map(async (t) => {
      if (t.kind !== 'starter') return { ...t, thumbnail_html: await renderDocument(t.document) };
      let html = starterHtml.get(t.id);
      if (!html) starterHtml.set(t.id, (html = renderDocument(t.document)));
      return { ...t, thumbnail_html: await html };
    }),
  );
}

/** Saves a template from a document, or from a block campaign of the account (its current document). */
export async function create(db: Db, accountId: string, input: unknown): Promise<Template> {
  const t = parseInput(NewTemplate, input);
  let document: BlockDocument;
  if (t.campaign_id !== undefined) {
    const c = await db
      .selectFrom('campaigns')
      .select(['content_format', 'content_source'])
      .where('account_id', '=', accountId)
      .where('id', '=', t.campaign_id)
      .executeTakeFirst();
    if (!c) throw Validation.field('campaign_id', 'Campaign not found');
    if (c.content_format !== 'blocks' || !c.content_source)
      throw Validation.field('campaign_id', 'Only a campaign made with the block editor can be saved as a template');
    document = parseDocument(c.content_source, 'campaign_id');
  } else {
    document = parseDocument(t.document, 'document');
  }
  const row = await db
    .insertInto('content_templates')
    .values({ account_id: accountId, name: t.name, kind: t.kind ?? 'campaign', document: JSON.stringify(document) })
    .returning(['id', 'name', 'kind', 'created_at'])
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    key: null,
    name: row.name,
    kind: 'saved',
    used_for: row.kind,
    description: null,
    document,
    created_at: row.created_at,
  };
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  if (!UUID.test(id)) throw new NotFound(NOT_FOUND);
  const r = await db
    .deleteFrom('content_templates')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new NotFound(NOT_FOUND);
}

/**
 * The document JSON text of a starter (by its UUID or its key) or a saved template, for a campaign
 * started from it (template_id).
 */
export async function documentOf(db: Db, accountId: string, templateId: string): Promise<string> {
  const starter = starterById(templateId);
  if (starter) return JSON.stringify(starter.document);
  const row = UUID.test(templateId)
    ? await db
        .selectFrom('content_templates')
        .select('document')
        .where('account_id', '=', accountId)
        .where('id', '=', templateId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw Validation.field('template_id', `${NOT_FOUND}: use an id from GET /templates`);
  return row.document;
}
