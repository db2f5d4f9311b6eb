// Kysely types of the imports tables (migrations 20261121_0900_imports.sql, 20261121_1100_import_speed.sql).
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { JsonColumn, NullableTimestamp, Timestamp } from './core.ts';

export type ImportStatus = 'staging' | 'processing' | 'completed' | 'failed';

export interface ImportError {
  row: number;
  email: string | null;
  reason: string;
}

export interface ImportsTable {
  id: Generated<string>;
  account_id: string;
  status: Generated<ImportStatus>;
  source: Generated<string>;
  file_name: string | null;
  group_ids: Generated<string[]>;
  ignored_columns: Generated<string[]>;
  total_rows: Generated<number>;
  new_count: Generated<number>;
  last_row: Generated<number>;
  end_row: Generated<number>;
  processed_rows: Generated<number>;
  created_count: Generated<number>;
  updated_count: Generated<number>;
  failed_count: Generated<number>;
  duplicate_count: Generated<number>;
  errors: JsonColumn<ImportError[]>;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
  /** the person's choices (migration 20261207_0500): existing, consent_note, on_bad_value, mapping */
  options: JsonColumn<ImportJobOptions>;
  skipped_count: Generated<number>;
  warning_count: Generated<number>;
  warnings: JsonColumn<ImportError[]>;
}

export interface ImportJobOptions {
  existing?: 'update' | 'skip';
  consent_note?: string;
  on_bad_value?: 'refuse_row' | 'drop_value';
  mapping?: Record<string, string>;
}

/** One staged row inside an import_chunks.rows array (null keys are left out). */
export interface StagedJsonRow {
  row_no: number;
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  custom_fields?: Record<string, unknown> | null;
  time_zone?: string | null;
  error?: string | null;
  /** values dropped from the row, each with why */
  warnings?: string[] | null;
}

export interface ImportChunksTable {
  import_id: string;
  first_row: number;
  last_row: number;
  rows: JsonColumn<StagedJsonRow[]>;
}

export interface ImportDupsTable {
  import_id: string;
  row_no: number;
}

export interface ImportPartsTable {
  import_id: string;
  part: number;
  last_row: number;
  end_row: number;
}

export interface ImportsTables {
  imports: ImportsTable;
  import_parts: ImportPartsTable;
  import_chunks: ImportChunksTable;
  import_dups: ImportDupsTable;
}

export type ImportRow = Selectable<ImportsTable>;
