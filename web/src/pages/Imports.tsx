// Imports: upload a CSV (the same path as REST import-async) into the groups picked, after seeing which
// column fills which field (imports/ColumnMapping.tsx), and the history of import jobs with their counts;
// one job's page shows its message and the first row errors. Running jobs refresh themselves.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, api, qs, type ImportJob, type Meta } from '../api.ts';
import { DataTable, type ColumnDef } from '../lib/table.tsx';
import { Alert, Badge, Field, fieldError, formatDate, Loading } from '../ui.tsx';
import { ColumnMapping, headerLine } from './imports/ColumnMapping.tsx';
import { GroupPicker } from './imports/GroupPicker.tsx';

const TONE: Record<string, 'good' | 'bad' | 'warn'> = { completed: 'good', failed: 'bad', processing: 'warn' };

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

export function Imports({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const { data, error } = useQuery({
    queryKey: ['imports', page],
    queryFn: () => api.get<{ imports: ImportJob[]; meta: Meta }>(`/imports${qs({ page, per_page: 25 })}`),
    // running jobs refresh themselves
    refetchInterval: (q) => (q.state.data?.imports.some((j) => j.status === 'processing') ? 2000 : false),
  });
  return (
    <section>
      <h1>Imports</h1>
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
        paging={data && { page: data.meta.current_page, lastPage: data.meta.last_page, onPage: setPage }}
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
  const chosen = async (file: File | undefined) => {
    setError(undefined);
    setHeader(file && file.size > 0 ? await headerLine(file) : undefined);
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
      const body = new FormData();
      if (groupIds.length > 0) body.append('group_ids', JSON.stringify(groupIds));
      body.append('file', file, file.name);
      const res = await fetch('/app/api/imports', {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { 'x-mailgrove-csrf': '1' },
      });
      const json = await res.json().catch(() => undefined);
      if (!res.ok || !json?.success)
        throw new ApiError(
          res.status,
          json?.error ?? `Upload failed (${res.status})`,
          res.status === 400 ? (json?.data ?? {}) : {},
          json?.message,
        );
      await client.invalidateQueries({ queryKey: ['imports'] });
      navigate(`/app/imports/${json.data.job_id}`);
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
        A header row names the columns: <code>email</code> (required), <code>first_name</code>, <code>last_name</code>,{' '}
        <code>phone</code> and your custom field keys. Existing subscribers are updated; the plan limit is checked
        before the import starts.
      </p>
      <Alert error={error} shown={['file']} />
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
      </form>
      {header !== undefined && <ColumnMapping header={header} canCreateFields />}
      <button type="submit" form="upload-form" disabled={busy}>
        {busy ? 'Uploading…' : 'Start import'}
      </button>
    </div>
  );
}

const ROW_ERRORS: ColumnDef<ImportJob['errors'][number]>[] = [
  { header: 'Row', accessorKey: 'row' },
  { header: 'Email', accessorKey: 'email', cell: (c) => (c.getValue() as string | null) ?? '—' },
  { header: 'Reason', accessorKey: 'reason' },
];

export function ImportView({ id }: { id: string }) {
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: ['imports', 'one', id],
    queryFn: () => api.get<ImportJob>(`/imports/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.status === 'processing' ? 1000 : false),
  });
  // the history shows the same job: what this page learnt is what it shows too, without a flash of the old
  useEffect(() => {
    if (!data) return;
    client.setQueriesData<{ imports: ImportJob[]; meta: Meta }>({ queryKey: ['imports'] }, (page) =>
      page?.imports ? { ...page, imports: page.imports.map((j) => (j.job_id === data.job_id ? data : j)) } : page,
    );
  }, [data, client]);
  return (
    <section>
      <p>
        <Link to="/app/imports">← Imports</Link>
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <h1>{data.file_name ?? 'API import'}</h1>
          <div className="card" aria-live="polite">
            <p>
              <Badge tone={TONE[data.status]}>{data.status}</Badge> {data.message}
            </p>
            <progress max={Math.max(1, data.total_rows)} value={data.processed_rows} aria-label="Rows processed" />
            <dl className="facts">
              <dt>Rows</dt>
              <dd>
                {data.processed_rows.toLocaleString()} of {data.total_rows.toLocaleString()} processed
              </dd>
              <dt>Created</dt>
              <dd>{data.created_count.toLocaleString()}</dd>
              <dt>Updated</dt>
              <dd>{data.updated_count.toLocaleString()}</dd>
              <dt>Failed</dt>
              <dd>{data.failed_count.toLocaleString()}</dd>
              <dt>Started</dt>
              <dd>{formatDate(data.created_at)}</dd>
              <dt>Finished</dt>
              <dd>{formatDate(data.finished_at)}</dd>
            </dl>
          </div>
          {data.errors.length > 0 && (
            <>
              <h2>Rows that failed{data.failed_count > data.errors.length ? ` (first ${data.errors.length})` : ''}</h2>
              <DataTable
                label="Rows that failed"
                columns={ROW_ERRORS}
                rows={data.errors}
                empty="No row failed."
                rowKey={(e) => String(e.row)}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
