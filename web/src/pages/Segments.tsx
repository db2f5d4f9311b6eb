// Segments: the account's saved audiences with their live counts, and a rule builder for a new one (match
// all / any of flat rules, with the live count of the draft). A segment opens at /app/segments/:id to be
// edited. The fields, operators and groups offered come from /app/api/audience, i.e. the server's table.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, qs, type Audience } from '../api.ts';
import { actionsColumn, DataTable, lastPageOf, type ColumnDef } from '../lib/table.tsx';
import { Alert, formatDate } from '../ui.tsx';
import { SegmentBuilder, type SegmentDraft } from './segments/SegmentBuilder.tsx';
import type { Segment } from './segments/SegmentPage.tsx';

export function Segments({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['segments', page],
    queryFn: () => api.get<{ segments: Segment[]; total: number; per_page: number }>(`/segments${qs({ page })}`),
  });
  const audience = useQuery({ queryKey: ['audience'], queryFn: () => api.get<Audience>('/audience') });
  const [error, setError] = useState<unknown>();
  // campaigns' audience pickers list segments too
  const changed = () => client.invalidateQueries({ queryKey: ['segments'] });
  const create = async (draft: SegmentDraft) => {
    await api.post('/segments', draft);
    await changed();
    return true;
  };
  const remove = async (s: Segment) => {
    if (!confirm(`Delete the segment “${s.name}”? Subscribers are not affected.`)) return;
    try {
      await api.del(`/segments/${s.id}`);
      await changed();
    } catch (err) {
      setError(err);
    }
  };
  const columns: ColumnDef<Segment>[] = [
    {
      header: 'Name',
      accessorKey: 'name',
      cell: ({ row }) => <Link to={`/app/segments/${row.original.id}`}>{row.original.name}</Link>,
    },
    { header: 'Subscribers', accessorKey: 'subscriber_count', cell: (c) => (c.getValue() as number).toLocaleString() },
    {
      header: 'Rules',
      enableSorting: false,
      meta: { className: 'mono' },
      cell: ({ row }) => `${row.original.filter.match} of ${row.original.filter.rules.length}`,
    },
    { header: 'Created', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
  ];
  if (canEdit)
    columns.push(
      actionsColumn((seg) => (
        <button
          type="button"
          className="danger-outline small"
          onClick={() => remove(seg)}
          aria-label={`Delete ${seg.name}`}
        >
          Delete
        </button>
      )),
    );
  return (
    <section>
      <h1>Segments</h1>
      <p className="muted">
        A segment is a saved filter over your subscribers; campaigns can send to it. Counts are computed live.
      </p>
      {canEdit && audience.data && (
        <SegmentBuilder audience={audience.data} title="New segment" submitLabel="Save segment" onSave={create} />
      )}
      <h2>Saved segments</h2>
      <Alert error={error} />
      <DataTable
        label="Segments"
        columns={columns}
        rows={list.data?.segments}
        error={list.error}
        empty="No segments yet."
        rowKey={(s) => s.id}
        paging={list.data && { page, lastPage: lastPageOf(list.data.total, list.data.per_page), onPage: setPage }}
      />
    </section>
  );
}
