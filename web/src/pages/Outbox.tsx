// Outbox: the mail this Mailgrove captured instead of sending (no SMTP_URL set), newest first. A message's
// HTML is shown in a sandboxed frame served with a no-network CSP, so it can run nothing and track nothing.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, qs, type Meta } from '../api.ts';
import { DataTable, type ColumnDef } from '../lib/table.tsx';
import { Alert, formatDate, Loading } from '../ui.tsx';

interface Summary {
  id: string;
  message_id: string;
  from_addr: string;
  to_addr: string;
  subject: string;
  created_at: string;
}
interface Message extends Summary {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
}

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

export function Outbox() {
  const [page, setPage] = useState(1);
  const { data, error } = useQuery({
    queryKey: ['outbox', page],
    queryFn: () => api.get<{ messages: Summary[]; meta: Meta }>(`/outbox${qs({ page })}`),
  });
  return (
    <section>
      <h1>Outbox</h1>
      <p className="muted">
        Without an SMTP server configured (<code>SMTP_URL</code>), Mailgrove keeps outgoing mail here instead of sending
        it.
      </p>
      <DataTable
        label="Captured messages"
        columns={COLUMNS}
        rows={data?.messages}
        error={error}
        empty="No messages captured."
        rowKey={(m) => m.id}
        paging={data && { page: data.meta.current_page, lastPage: data.meta.last_page, onPage: setPage }}
      />
    </section>
  );
}

export function OutboxMessage({ id }: { id: string }) {
  const { data, error } = useQuery({
    queryKey: ['outbox', 'one', id],
    queryFn: () => api.get<Message>(`/outbox/${encodeURIComponent(id)}`),
  });
  const [view, setView] = useState<'html' | 'text' | 'headers'>('html');
  return (
    <section>
      <p>
        <Link to="/app/outbox">← Outbox</Link>
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <h1>{data.subject || '(no subject)'}</h1>
          <dl className="facts card">
            <dt>From</dt>
            <dd>{data.from_addr}</dd>
            <dt>To</dt>
            <dd>{data.to_addr}</dd>
            <dt>Captured</dt>
            <dd>{formatDate(data.created_at)}</dd>
            <dt>Message-ID</dt>
            <dd className="mono">{data.message_id}</dd>
          </dl>
          <div className="tabs" role="tablist" aria-label="Message view">
            {(['html', 'text', 'headers'] as const).map((v) => (
              <button
                key={v}
                type="button"
                role="tab"
                aria-selected={view === v}
                className={view === v ? 'tab active' : 'tab'}
                onClick={() => setView(v)}
              >
                {v === 'html' ? 'HTML' : v === 'text' ? 'Plain text' : 'Headers'}
              </button>
            ))}
          </div>
          <div role="tabpanel" className="message-view">
            {view === 'html' ? (
              <iframe
                title="Message HTML"
                sandbox=""
                src={`/app/api/outbox/${encodeURIComponent(data.id)}/html`}
                className="message-frame"
              />
            ) : view === 'text' ? (
              <pre className="message-text">{data.text ?? '(no plain-text part)'}</pre>
            ) : (
              <pre className="message-text">
                {Object.entries(data.headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n')}
              </pre>
            )}
          </div>
        </>
      )}
    </section>
  );
}
