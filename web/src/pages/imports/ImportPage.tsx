// One import job: its status and message, its counts, and the first rows it refused. A running job
// refreshes itself every second.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { type ListOf } from '../../api/client.ts';
import { getImport, importKeys, type ImportJob } from '../../api/imports.ts';
import { DataTable, type ColumnDef } from '../../lib/table.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { Alert, Badge, formatDate, Loading } from '../../ui.tsx';
import { TONE } from './ImportsPage.tsx';

const ROW_ERRORS: ColumnDef<ImportJob['errors'][number]>[] = [
  { header: 'Row', accessorKey: 'row' },
  { header: 'Email', accessorKey: 'email', cell: (c) => (c.getValue() as string | null) ?? '—' },
  { header: 'Reason', accessorKey: 'reason' },
];

export function ImportPage({ id }: { id: string }) {
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: importKeys.one(id),
    queryFn: () => getImport(id),
    refetchInterval: (q) => (q.state.data?.status === 'processing' ? 1000 : false),
  });
  // the history shows the same job: what this page learnt is what it shows too, without a flash of the old
  useEffect(() => {
    if (!data) return;
    client.setQueriesData<ListOf<'imports', ImportJob>>({ queryKey: importKeys.all }, (page) =>
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
          <PageHeader title={data.file_name ?? 'API import'} />
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
              {data.skipped_count > 0 && (
                <>
                  <dt>Left alone (already on the list)</dt>
                  <dd>{data.skipped_count.toLocaleString()}</dd>
                </>
              )}
              {data.warning_count > 0 && (
                <>
                  <dt>Imported with a value left out</dt>
                  <dd>{data.warning_count.toLocaleString()}</dd>
                </>
              )}
              {data.options.consent_note && (
                <>
                  <dt>Consent note</dt>
                  <dd className="break">{data.options.consent_note}</dd>
                </>
              )}
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
          {data.warnings.length > 0 && (
            <>
              <h2>
                Rows imported with a value left out
                {data.warning_count > data.warnings.length ? ` (first ${data.warnings.length})` : ''}
              </h2>
              <DataTable
                label="Rows imported with a value left out"
                columns={ROW_ERRORS}
                rows={data.warnings}
                empty="No warnings."
                rowKey={(e) => `w${e.row}`}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
