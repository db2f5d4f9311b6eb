// Kysely types of the content tables (migration 20261206_1300_content_blocks.sql).
import type { Generated } from 'kysely';
import type { Timestamp } from './core.ts';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
export type TemplateKind = 'campaign' | 'automation' | 'confirmation';

export interface ImagesTable {
  id: Generated<string>;
  account_id: string;
  content_type: ImageType;
  width: number;
  height: number;
  size: number;
  sha256: string;
  filename: string | null;
  data: Uint8Array;
  created_at: Timestamp;
}

export interface ContentTemplatesTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  kind: Generated<TemplateKind>;
  document: string;
  created_at: Timestamp;
}

export interface ContentTables {
  images: ImagesTable;
  content_templates: ContentTemplatesTable;
}
