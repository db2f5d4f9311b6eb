// Imports: upload a CSV (the same path as REST import-async) into the groups picked, after seeing which
// column fills which field (imports/ColumnMapping.tsx), and the history of import jobs with their counts;
// one job's page (ImportPage.tsx) shows its message and the first row errors. Running jobs refresh themselves.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client.ts';
import { importKeys, listImports, uploadImport, type ImportJob, type ImportOptions } from '../../api/imports.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, Field, fieldError, formatDate } from '../../ui.tsx';
import { ColumnMapping, fileStart, type Mapping } from './ColumnMapping.tsx';
import { GroupPicker } from './GroupPicker.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

export const TONE: Record<string, 'good' | 'bad' | 'warn'> = { completed: 'good', failed: 'bad', processing: 'warn' };

const COLUMNS: ColumnDef<ImportJob>[] = [
  {
    header: 'File',
    accessorFn: (j) => j.file_name ?? 'API import',
    cell: ({ row }) => <Link to={`/app/imports/${row.original.job_id}`}>{row.original.file_name ?? 'API import'}</Link>,
  },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <Badge tone={TONE[c.getValue() as string]}>{c.getValue() as string}</Badge>,
  },
  {
    header: 'Rows',
    accessorKey: 'processed_rows',
    cell: ({ row }) => `${row.original.processed_rows.toLocaleString()} / ${row.original.total_rows.toLocaleString()}`,
  },
  { header: 'Created', accessorKey: 'created_count', cell: (c) => (c.getValue() as number).toLocaleString() },
  { header: 'Updated', accessorKey: 'updated_count', cell: (c) => (c.getValue() as number).toLocaleString() },
  { header: 'Failed', accessorKey: 'failed_count', cell: (c) => (c.getValue() as number).toLocaleString() },
  { header: 'Started', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
  { header: 'Finished', accessorKey: 'finished_at', cell: (c) => formatDate(c.getValue() as string | null) },
];

export function ImportsPage({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const { data, error } = useQuery({
    queryKey: importKeys.page(page),
    queryFn: () => listImports({ page, per_page: 25 }),
    // running jobs refresh themselves
    refetchInterval: (q) => (q.state.data?.imports.some((j) => j.status === 'processing') ? 2000 : false),
  });
  return (
    <section>
      <PageHeader title="Imports" />
      {canEdit && <Upload />}
      <h2>History</h2>
      <DataTable
        label="Import history"
        columns={COLUMNS}
        rows={data?.imports}
        error={error}
        empty="No imports yet."
        rowKey={(j) => j.job_id}
        rowProps={(j) => ({ 'data-job-id': j.job_id })}
        paging={pagingOf(data?.pagination, setPage)}
      />
    </section>
  );
}

function Upload() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const [header, setHeader] = useState<string>();
  const [mapping, setMapping] = useState<Mapping>({});
  const [existing, setExisting] = useState<NonNullable<ImportOptions['existing']>>('update');
  const [onBadValue, setOnBadValue] = useState<NonNullable<ImportOptions['on_bad_value']>>('refuse_row');
  const [consentNote, setConsentNote] = useState('');
  const chosen = async (file: File | undefined) => {
    setError(undefined);
    setMapping({});
    setHeader(file && file.size > 0 ? await fileStart(file) : undefined);
  };
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0)
      return setError(new ApiError(400, 'Choose a CSV file to upload', { file: ['Choose a CSV file to upload'] }));
    setBusy(true);
    setError(undefined);
    try {
      const job = await uploadImport(file, groupIds, {
        ...(Object.keys(mapping).length > 0 && { mapping }),
        existing,
        on_bad_value: onBadValue,
        consent_note: consentNote,
      });
      await client.invalidateQueries({ queryKey: importKeys.all });
      navigate(`/app/imports/${job.job_id}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  // the mapping may offer to create a field (a form of its own), so it sits outside the upload form
  return (
    <div className="card" role="group" aria-labelledby="upload-title">
      <h2 id="upload-title">Import subscribers from CSV</h2>
      <p className="muted">
        The file needs a header row. Once it is chosen, pick what each column fills (any column can go to any field, or
        be skipped). The plan limit is checked before the import starts.
      </p>
      <Alert error={error} shown={['file', 'consent_note']} />
      <form id="upload-form" onSubmit={submit} noValidate>
        <Field label="CSV file" error={fieldError(error, 'file')}>
          {(id, d) => (
            <input
              id={id}
              name="file"
              type="file"
              accept=".csv,text/csv"
              required
              aria-describedby={d}
              onChange={(e) => void chosen(e.target.files?.[0])}
            />
          )}
        </Field>
        <GroupPicker value={groupIds} onChange={setGroupIds} />
        <fieldset className="choices">
          <legend>Subscribers who are already on the list</legend>
          <label>
            <input
              type="radio"
              name="existing"
              checked={existing === 'update'}
              onChange={() => setExisting('update')}
            />{' '}
            Update them with the file&apos;s values
          </label>
          <label>
            <input type="radio" name="existing" checked={existing === 'skip'} onChange={() => setExisting('skip')} />{' '}
            Leave them as they are
          </label>
        </fieldset>
        <fieldset className="choices">
          <legend>A value that does not fit its field (a number column with text, an unknown time zone)</legend>
          <label>
            <input
              type="radio"
              name="on_bad_value"
              checked={onBadValue === 'refuse_row'}
              onChange={() => setOnBadValue('refuse_row')}
            />{' '}
            Refuse the whole row
          </label>
          <label>
            <input
              type="radio"
              name="on_bad_value"
              checked={onBadValue === 'drop_value'}
              onChange={() => setOnBadValue('drop_value')}
            />{' '}
            Import the row without that value, with a warning
          </label>
        </fieldset>
        <Field
          label="Consent or source note"
          error={fieldError(error, 'consent_note')}
          hint="Kept as a note on each imported subscriber, e.g. “Signed the paper list at the spring fair, May 2026”"
        >
          {(id, d, invalid) => (
            <textarea
              id={id}
              rows={2}
              maxLength={1000}
              value={consentNote}
              onChange={(e) => setConsentNote(e.target.value)}
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
      </form>
      {header !== undefined && <ColumnMapping start={header} value={mapping} onChange={setMapping} canCreateFields />}
      <button type="submit" form="upload-form" disabled={busy}>
        {busy ? 'Uploading…' : 'Start import'}
      </button>
    </div>
  );
}
