// Suppressions: the addresses campaigns never mail (the same list as REST GET /suppressions), newest first
// with their reason; add one address or a CSV of them, remove an entry after a confirmation, export as CSV.
// Forgotten addresses are listed without their address (only a hash is kept); bounced and complained
// subscribers leave the list when their status changes, so they have no Remove button.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client.ts';
import {
  addSuppression,
  addSuppressionCsv,
  listSuppressions,
  removeSuppression,
  suppressionKeys,
  suppressionsCsvUrl,
  type CsvResult,
  type Suppression,
} from '../../api/suppressions.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Field, formatDate } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const REASONS: Record<Suppression['reason'], string> = {
  manual: 'Added by hand',
  forgotten: 'Forgotten',
  bounced: 'Bounced',
  complained: 'Complained',
};

const addresses = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'address' : 'addresses'}`;

export function SuppressionsPage({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: suppressionKeys.page(page),
    queryFn: () => listSuppressions({ page, per_page: 50 }),
  });
  const reload = () => client.invalidateQueries({ queryKey: suppressionKeys.all });

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
          <ConfirmButton
            label="Remove"
            name={`Remove ${e.email ?? 'forgotten address'}`}
            question={`Remove ${e.email ?? 'this forgotten address'}? Campaigns will mail this address again if it is a subscriber in their audience.`}
            yes="Remove from list"
            onConfirm={async () => {
              await removeSuppression(e.id);
              await reload();
            }}
          />
        );
      },
    },
  ];

  return (
    <section>
      <PageHeader title="Suppressions">
        <a className="button secondary" href={suppressionsCsvUrl} download>
          Export CSV
        </a>
      </PageHeader>
      <p className="muted">Campaigns never mail an address on this list.</p>
      {canEdit && <AddOne onAdded={reload} />}
      {canEdit && <AddCsv onAdded={reload} />}
      <DataTable
        label="Suppressions"
        columns={columns}
        rows={data?.suppressions}
        error={error}
        empty="No suppressed addresses."
        rowKey={(e) => e.id}
        paging={pagingOf(data?.pagination, setPage)}
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
      await addSuppression(new FormData(form).get('email'));
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
      setResult(await addSuppressionCsv(await file.text()));
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
