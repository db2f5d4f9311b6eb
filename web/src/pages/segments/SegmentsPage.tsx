// Segments: the account's saved audiences with their live counts, and a rule builder for a new one (match
// all / any of flat rules, with the live count of the draft). A segment opens at /app/segments/:id to be
// edited. The fields, operators and groups offered come from /app/api/audience, i.e. the server's table.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { audienceKeys, getAudience } from '../../api/audience.ts';
import { createSegment, deleteSegment, listSegments, segmentKeys, type Segment } from '../../api/segments.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { actionsColumn, DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { formatDate } from '../../ui.tsx';
import { SegmentBuilder, type SegmentDraft } from './SegmentBuilder.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

export function SegmentsPage({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: segmentKeys.page(page),
    queryFn: () => listSegments({ page }),
  });
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  // campaigns' audience pickers list segments too
  const changed = () => client.invalidateQueries({ queryKey: segmentKeys.all });
  const create = async (draft: SegmentDraft) => {
    await createSegment(draft);
    await changed();
    return true;
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
        <ConfirmButton
          label="Delete"
          name={`Delete ${seg.name}`}
          question={`Delete the segment “${seg.name}”? Subscribers are not affected.`}
          onConfirm={async () => {
            await deleteSegment(seg.id);
            await changed();
          }}
        />
      )),
    );
  return (
    <section>
      <PageHeader title="Segments" />
      <p className="muted">
        A segment is a saved filter over your subscribers; campaigns can send to it. Counts are computed live.
      </p>
      {canEdit && audience.data && (
        <SegmentBuilder audience={audience.data} title="New segment" submitLabel="Save segment" onSave={create} />
      )}
      <h2>Saved segments</h2>
      <DataTable
        label="Segments"
        columns={columns}
        rows={list.data?.segments}
        error={list.error}
        empty="No segments yet."
        rowKey={(s) => s.id}
        paging={pagingOf(list.data?.pagination, setPage)}
      />
    </section>
  );
}
