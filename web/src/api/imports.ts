// CSV imports (/app/api/imports): the history, one job, how a file's header row maps to fields, and the
// upload that starts a job.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface ImportJob {
  job_id: string;
  status: string;
  message: string;
  file_name: string | null;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  failed_count: number;
  skipped_count: number;
  errors: { row: number; email: string | null; reason: string }[];
  warnings: { row: number; email: string | null; reason: string }[];
  warning_count: number;
  options: ImportOptions;
  created_at: string;
  finished_at: string | null;
}
export interface ColumnMapping {
  columns: {
    header: string;
    maps_to: string | null;
    field: { key: string; name: string; type: string } | null;
    samples: string[];
  }[];
  problem: string | null;
}
/** What the person chose beside the file; sent as multipart fields before it. */
export interface ImportOptions {
  mapping?: Record<string, string>;
  existing?: 'update' | 'skip';
  consent_note?: string;
  on_bad_value?: 'refuse_row' | 'drop_value';
}

export const importKeys = {
  all: ['imports'] as const,
  page: (page: number) => ['imports', page] as const,
  one: (id: string) => ['imports', 'one', id] as const,
  columns: (header: string) => ['imports', 'columns', header] as const,
};

export const listImports = (query: ListQuery) => api.get<ListOf<'imports', ImportJob>>(`/imports${qs(query)}`);
export const getImport = (id: string) => api.get<ImportJob>(`/imports/${encodeURIComponent(id)}`);
export const mapColumns = (header: string) => api.post<ColumnMapping>('/imports/columns', { header });
/** Uploads a CSV into the groups given, with the person's options (before the file: it is read as it arrives). */
export function uploadImport(file: File, groupIds: string[], options: ImportOptions = {}) {
  const body = new FormData();
  if (groupIds.length > 0) body.append('group_ids', JSON.stringify(groupIds));
  if (options.mapping) body.append('mapping', JSON.stringify(options.mapping));
  if (options.existing) body.append('existing', options.existing);
  if (options.consent_note?.trim()) body.append('consent_note', options.consent_note.trim());
  if (options.on_bad_value) body.append('on_bad_value', options.on_bad_value);
  body.append('file', file, file.name);
  return api.upload<ImportJob>('/imports', body);
}
