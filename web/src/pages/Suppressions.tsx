// Suppressions: the addresses campaigns never mail (the same list as REST GET /suppressions), newest first
// with their reason; add one address or a CSV of them, remove an entry after a confirmation, export as CSV.
// Forgotten addresses are listed without their address (only a hash is kept); bounced and complained
// subscribers leave the list when their status changes, so they have no Remove button.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError } from '../api.ts';
import { DataTable, type ColumnDef } from '../lib/table.tsx';
import { Alert, Field, formatDate } from '../ui.tsx';

export interface Suppression {
  id: string;
  email: string | null;
  reason: 'bounced' | 'complained' | 'forgotten' | 'manual';
  subscriber_id: string | null;
  created_at: string;
}

interface Page {
  suppressions: Suppression[];
  pagination: { current_page: number; total_pages: number; total_count: number };
}

interface CsvResult {
  added: number;
  already_listed: number;
  invalid_count: number;
  invalid: { row: number; value: string; reason: string }[];
}

const REASONS: Record<Suppression['reason'], string> = {
  manual: 'Added by hand',
  forgotten: 'Forgotten',
  bounced: 'Bounced',
  complained: 'Complained',
};

const addresses = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'address' : 'addresses'}`;

export function Suppressions({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: ['suppressions', page],
    queryFn: () => api.get<Page>(`/suppressions?page=${page}&per_page=50`),
  });
  const [removing, setRemoving] = useState<Suppression>();
  const [failure, setFailure] = useState<unknown>();
  const reload = () => client.invalidateQueries({ queryKey: ['suppressions'] });

  const remove = async (e: Suppression) => {
    setFailure(undefined);
    try {
      await api.del(`/suppressions/${e.id}`);
      setRemoving(undefined);
      await reload();
    } catch (err) {
      setFailure(err);
    }
  };

  const columns: ColumnDef<Suppression>[] = [
    {
      header: 'Address',
      accessorKey: 'email',
      enableSorting: false,
      cell: ({ row }) => {
        const e = row.original;
        if (e.email === null) return <span className="muted">forgotten — address not kept</span>;
        return e.subscriber_id ? <Link to={`/app/subscribers/${e.subscriber_id}`}>{e.email}</Link> : e.email;
      },
    },
    { header: 'Reason', accessorKey: 'reason', cell: (c) => REASONS[c.getValue() as Suppression['reason']] },
    { header: 'Since', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
    {
      header: 'Actions',
      enableSorting: false,
      cell: ({ row }) => {
        const e = row.original;
        if (!canEdit || e.subscriber_id) return null;
        return (
          <button
            type="button"
            className="danger small"
            aria-label={`Remove ${e.email ?? 'forgotten address'}`}
            onClick={() => setRemoving(e)}
          >
            Remove
          </button>
        );
      },
    },
  ];

  return (
    <section>
      <div className="title-row">
        <h1>Suppressions</h1>
        <a className="button secondary" href="/app/api/suppressions/export" download>
          Export CSV
        </a>
      </div>
      <p className="muted">Campaigns never mail an address on this list.</p>
      {canEdit && <AddOne onAdded={reload} />}
      {canEdit && <AddCsv onAdded={reload} />}
      {removing && (
        <div className="card" role="alertdialog" aria-labelledby="remove-suppression-title">
          <h2 id="remove-suppression-title">Remove {removing.email ?? 'this forgotten address'}?</h2>
          <p>Campaigns will mail this address again if it is a subscriber in their audience.</p>
          <Alert error={failure} />
          <div className="buttons">
            <button type="button" className="danger" onClick={() => remove(removing)}>
              Remove from list
            </button>
            <button type="button" className="secondary" onClick={() => setRemoving(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <DataTable
        label="Suppressions"
        columns={columns}
        rows={data?.suppressions}
        error={error}
        empty="No suppressed addresses."
        rowKey={(e) => e.id}
        paging={data && { page: data.pagination.current_page, lastPage: data.pagination.total_pages, onPage: setPage }}
      />
    </section>
  );
}

function AddOne({ onAdded }: { onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    try {
      await api.post('/suppressions', { email: new FormData(form).get('email') });
      form.reset();
      setError(undefined);
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <form className="toolbar" onSubmit={submit} noValidate aria-label="Suppress an address">
      <Field
        label="Address to suppress"
        error={fields.email ?? (error instanceof ApiError && !fields.email ? [error.message] : undefined)}
      >
        {(id, d) => <input id={id} name="email" type="email" required maxLength={254} aria-describedby={d} />}
      </Field>
      <button type="submit">Suppress</button>
    </form>
  );
}

function AddCsv({ onAdded }: { onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<CsvResult>();
  const upload = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.post<CsvResult>('/suppressions/import', { csv: await file.text() }));
      onAdded();
    } catch (err) {
      setError(err);
    } finally {
      input.value = '';
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <div className="toolbar">
      <Field
        label="Upload a CSV of addresses"
        error={fields.file ?? (error instanceof ApiError && !fields.file ? [error.message] : undefined)}
      >
        {(id, d) => <input id={id} type="file" accept=".csv,text/csv" onChange={upload} aria-describedby={d} />}
      </Field>
      {result && (
        <p role="status">
          {addresses(result.added)} added, {result.already_listed.toLocaleString()} already listed
          {result.invalid_count > 0 && `, ${result.invalid_count.toLocaleString()} not an address`}
          {result.invalid[0] && ` (row ${result.invalid[0].row}: ${result.invalid[0].value})`}.
        </p>
      )}
    </div>
  );
}
