// Outbox: the mail this Mailgrove captured instead of sending (no SMTP_URL set), newest first. A message's
// HTML is shown (MessagePage.tsx) in a sandboxed frame served with a no-network CSP, so it can run nothing
// and track nothing.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { listOutbox, outboxKeys, type MessageSummary as Summary } from '../../api/outbox.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { formatDate } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const COLUMNS: ColumnDef<Summary>[] = [
  {
    header: 'Subject',
    accessorKey: 'subject',
    cell: ({ row }) => <Link to={`/app/outbox/${row.original.id}`}>{row.original.subject || '(no subject)'}</Link>,
  },
  { header: 'To', accessorKey: 'to_addr' },
  { header: 'From', accessorKey: 'from_addr' },
  { header: 'Captured', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
];

export function OutboxPage() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const { data, error } = useQuery({
    queryKey: outboxKeys.page(page, search),
    queryFn: () => listOutbox({ page, search: search || undefined }),
  });
  const onSearch = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSearch(String(new FormData(e.currentTarget).get('search') ?? '').trim());
    setPage(1);
  };
  return (
    <section>
      <PageHeader title="Outbox" />
      <p className="muted">
        Without an SMTP server configured (<code>SMTP_URL</code>), Mailgrove keeps outgoing mail here instead of sending
        it.
      </p>
      <form className="toolbar" role="search" onSubmit={onSearch}>
        <label>
          <span className="visually-hidden">Search</span>
          <input name="search" type="search" placeholder="Search address or subject" defaultValue={search} />
        </label>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      <DataTable
        label="Captured messages"
        columns={COLUMNS}
        rows={data?.messages}
        error={error}
        empty={search ? `No captured message matches “${search}”.` : 'No messages captured.'}
        rowKey={(m) => m.id}
        paging={pagingOf(data?.pagination, setPage)}
      />
    </section>
  );
}
