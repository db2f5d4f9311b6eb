// Kysely types of the segments tables (migration 20261121_0910_segments.sql).
import type { Generated } from 'kysely';
import type { JsonColumn, Timestamp } from './core.ts';

/** A stored segment filter: the rule tree as saved (the segment context validates and compiles it). */
export type FilterRule = { field: string; operator: string; value?: unknown };
export type Filter = { match: 'all' | 'any'; rules: (FilterRule | Filter)[] };

export interface SegmentsTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  filter: JsonColumn<Filter>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SegmentsTables {
  segments: SegmentsTable;
}
