// Kysely types of the segments tables (migration 20261121_0910_segments.sql).
import type { Generated } from 'kysely';
import type { Filter } from '../../domain/segments/filter.ts';
import type { JsonColumn, Timestamp } from './core.ts';

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
