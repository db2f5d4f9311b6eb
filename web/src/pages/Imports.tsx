// Imports: upload a CSV (the same path as REST import-async) and the history of import jobs with their
// counts; one job's page shows its message and the first row errors. Running jobs refresh themselves.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, api, qs, type ImportJob, type Meta } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Alert, Badge, Field, formatDate, Loading, Pager, useLoad } from '../ui.tsx';

const TONE: Record<string, 'good' | 'bad' | 'warn'> = { completed: 'good', failed: 'bad', processing: 'warn' };

export function Imports({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const { data, error, reload } = useLoad(
    () => api.get<{ imports: ImportJob[]; meta: Meta }>(`/imports${qs({ page, per_page: 25 })}`),
    [page],
  );
  const running = data?.imports.some((j) => j.status === 'processing');
  useEffect(() => {
    if (!running) return;
    const t = setInterval(reload, 2000);
    return () => clearInterval(t);
  }, [running, reload]);

  return (
    <section>
      <h1>Imports</h1>
      {canEdit && <Upload />}
      <h2>History</h2>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : data.imports.length === 0 ? (
        <p className="empty">No imports yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data" aria-label="Import history">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Status</th>
                  <th scope="col">Rows</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {data.imports.map((j) => (
                  <tr key={j.job_id} data-job-id={j.job_id}>
                    <td>
                      <Link href={`/app/imports/${j.job_id}`}>{j.file_name ?? 'API import'}</Link>
                    </td>
                    <td>
                      <Badge tone={TONE[j.status]}>{j.status}</Badge>
                    </td>
                    <td>
                      {j.processed_rows.toLocaleString()} / {j.total_rows.toLocaleString()}
                    </td>
                    <td>{j.created_count.toLocaleString()}</td>
                    <td>{j.updated_count.toLocaleString()}</td>
                    <td>{j.failed_count.toLocaleString()}</td>
                    <td>{formatDate(j.created_at)}</td>
                    <td>{formatDate(j.finished_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.meta.current_page} lastPage={data.meta.last_page} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function Upload() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
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
      navigate(`/app/imports/${json.data.job_id}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="upload-title">
      <h2 id="upload-title">Import subscribers from CSV</h2>
      <p className="muted">
        A header row names the columns: <code>email</code> (required), <code>first_name</code>, <code>last_name</code>,{' '}
        <code>phone</code> and your custom field keys. Existing subscribers are updated; the plan limit is checked
        before the import starts.
      </p>
      <Alert error={error} />
      <Field label="CSV file">
        {(id) => <input id={id} name="file" type="file" accept=".csv,text/csv" required />}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Uploading…' : 'Start import'}
      </button>
    </form>
  );
}

export function ImportView({ id }: { id: string }) {
  const { data, error, reload } = useLoad(() => api.get<ImportJob>(`/imports/${encodeURIComponent(id)}`), [id]);
  useEffect(() => {
    if (data?.status !== 'processing') return;
    const t = setInterval(reload, 1000);
    return () => clearInterval(t);
  }, [data?.status, reload]);
  return (
    <section>
      <p>
        <Link href="/app/imports">← Imports</Link>
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
              <div className="table-wrap">
                <table className="data">
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      <th scope="col">Email</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.errors.map((e) => (
                      <tr key={e.row}>
                        <td>{e.row}</td>
                        <td>{e.email ?? '—'}</td>
                        <td>{e.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}
