// Subscribers: search by email or name, filter by status, group and segment, page through or jump to a
// page, all kept in the URL; add one by hand; export what the filter matches as CSV; select rows, or
// everything the filter matches, for one bulk action on the server (BulkBar).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { listSubscribers, subscriberKeys, subscribersCsvUrl, type Subscriber } from '../../api/subscribers.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Badge, formatDate, plural } from '../../ui.tsx';
import { BulkBar, type Selection } from './BulkActions.tsx';
import { AudienceFilters, PageJump } from './ListControls.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { EditSubscriber } from './EditSubscriber.tsx';

export const STATUS_TONE: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  active: 'good',
  unsubscribed: 'neutral',
  bounced: 'bad',
  complained: 'warn',
};

const COLUMNS: ColumnDef<Subscriber>[] = [
  {
    header: 'Email',
    accessorKey: 'email',
    cell: ({ row }) => <Link to={`/app/subscribers/${row.original.id}`}>{row.original.email}</Link>,
  },
  { header: 'Name', accessorFn: (s) => [s.first_name, s.last_name].filter(Boolean).join(' ') || '—' },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <Badge tone={STATUS_TONE[c.getValue() as string]}>{c.getValue() as string}</Badge>,
  },
  { header: 'Source', accessorKey: 'source' },
  { header: 'Subscribed', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
];

const FILTER_KEYS = ['search', 'status', 'group_id', 'segment_id'] as const;
type Filter = Record<(typeof FILTER_KEYS)[number], string>;

export function SubscribersPage({ canEdit }: { canEdit: boolean }) {
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ''])) as Filter;
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  // the URL holds the list (search, filters, page): reload, back and a shared link show the same page
  const go = (next: Partial<Filter> & { page?: number }) => {
    const merged: Record<string, string> = { ...filter, ...next, page: String(next.page ?? page) };
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(merged)) if (v && !(k === 'page' && v === '1')) p.set(k, v);
    setParams(p);
  };
  // keyed by the filter: another filter starts a fresh selection
  return <SubscriberList key={JSON.stringify(filter)} canEdit={canEdit} filter={filter} page={page} go={go} />;
}

function SubscriberList({
  canEdit,
  filter,
  page,
  go,
}: {
  canEdit: boolean;
  filter: Filter;
  page: number;
  go: (next: Partial<Filter> & { page?: number }) => void;
}) {
  const [selection, setSelection] = useState<Selection>({ ids: new Set(), all: false });
  const { data, error } = useQuery({
    queryKey: subscriberKeys.list(filter, page),
    queryFn: () => listSubscribers({ ...filter, page, per_page: 25 }),
    placeholderData: keepPreviousData,
  });
  const [adding, setAdding] = useState(false);

  const search = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (k: string) => String(form.get(k) ?? '');
    go({
      search: value('search'),
      status: value('status'),
      group_id: value('group_id'),
      segment_id: value('segment_id'),
      page: 1,
    });
  };
  const bySegment = filter.segment_id !== '';
  const rows = data?.subscribers;
  const pageIds = rows?.map((r) => r.id) ?? [];
  const toggle = (id: string) =>
    setSelection((sel) => {
      const ids = new Set(sel.ids);
      if (ids.has(id)) ids.delete(id);
      else ids.add(id);
      return { ids, all: false };
    });
  const pageChecked = pageIds.length > 0 && pageIds.every((id) => selection.all || selection.ids.has(id));
  const columns: ColumnDef<Subscriber>[] = canEdit
    ? [
        {
          id: 'select',
          enableSorting: false,
          header: () => (
            <input
              type="checkbox"
              aria-label="Select every subscriber on this page"
              checked={pageChecked}
              onChange={() => setSelection({ ids: new Set(pageChecked ? [] : pageIds), all: false })}
            />
          ),
          cell: ({ row }) => (
            <input
              type="checkbox"
              aria-label={`Select ${row.original.email}`}
              checked={selection.all || selection.ids.has(row.original.id)}
              onChange={() => toggle(row.original.id)}
            />
          ),
        },
        ...COLUMNS,
      ]
    : COLUMNS;

  return (
    <section>
      <PageHeader title="Subscribers">
        {canEdit && !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add subscriber
          </button>
        )}
      </PageHeader>
      {adding && <AddSubscriber onClose={() => setAdding(false)} />}
      <form className="toolbar" role="search" onSubmit={search}>
        <label>
          <span className="visually-hidden">Search</span>
          <input name="search" type="search" placeholder="Search email or name" defaultValue={filter.search} />
        </label>
        <label>
          <span className="visually-hidden">Status</span>
          <select name="status" defaultValue={filter.status}>
            <option value="">All statuses</option>
            <option value="active">Active</option>
            <option value="unsubscribed">Unsubscribed</option>
            <option value="bounced">Bounced</option>
            <option value="complained">Complained</option>
          </select>
        </label>
        <AudienceFilters groupId={filter.group_id} segmentId={filter.segment_id} />
        <button type="submit" className="secondary">
          Search
        </button>
        <a className="button secondary" href={subscribersCsvUrl(filter)} download>
          Export CSV
        </a>
      </form>
      {(filter.group_id || bySegment) && (
        <p className="muted">
          {bySegment ? 'Members of one segment only' : 'Members of one group only'}.{' '}
          <Link to="/app/subscribers">Show every subscriber</Link> ·{' '}
          {bySegment ? <Link to="/app/segments">All segments</Link> : <Link to="/app/groups">All groups</Link>}
        </p>
      )}
      {data && <p className="muted">{plural(data.pagination.total_count, 'subscriber')}</p>}
      {canEdit && data && (
        <BulkBar
          selection={selection}
          onSelect={setSelection}
          filter={filter}
          pageIds={pageIds}
          total={data.pagination.total_count}
        />
      )}
      <DataTable
        label="Subscribers"
        columns={columns}
        rows={rows}
        error={error}
        empty="No subscribers match."
        rowKey={(s) => s.id}
        paging={pagingOf(data?.pagination, (p) => go({ page: p }))}
      />
      {data && data.pagination.total_pages > 1 && (
        <PageJump key={page} page={page} lastPage={data.pagination.total_pages} onPage={(p) => go({ page: p })} />
      )}
    </section>
  );
}

function AddSubscriber({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  return <EditSubscriber onSaved={(id) => navigate(`/app/subscribers/${id}`)} onCancel={onClose} />;
}
