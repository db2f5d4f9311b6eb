// Kysely types of the imports tables (migration 20261121_0900_imports.sql).
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
}

export interface ImportRowsTable {
  import_id: string;
  row_no: number;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  custom_fields: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  error: string | null;
  dup: Generated<boolean>;
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
  import_rows: ImportRowsTable;
}

export type ImportRow = Selectable<ImportsTable>;
