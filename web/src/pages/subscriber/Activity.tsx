// A subscriber's history from the event log, newest first (GET /app/api/subscribers/:id/activity, the
// domain's activity.ofSubscriber, as MCP get_subscriber_activity): emails sent, opened and clicked, group
// changes, form sign-ups and status changes, each in words.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, qs } from '../../api.ts';
import { DataTable, type ColumnDef } from '../../lib/table.tsx';
import { formatDate } from '../../ui.tsx';

interface Item {
  id: string;
  type: string;
  data: Record<string, any>;
  created_at: string;
}
interface Page {
  activity: Item[];
  pagination: { current_page: number; total_pages: number; total_count: number };
}

function campaign(d: Record<string, any>): ReactNode {
  if (typeof d.campaign_id === 'string') return <Link to={`/app/campaigns/${d.campaign_id}`}>a campaign</Link>;
  if (typeof d.automation_id === 'string') return 'an automation';
  return 'an email';
}

/** One event in words. */
export function describe({ type, data: d }: Item): ReactNode {
  switch (type) {
    case 'subscriber.created':
      return `Added${d.source ? ` (${d.source})` : ''}`;
    case 'subscriber.updated':
      return `Profile updated${d.subscriber?.status ? ` — status ${d.subscriber.status}` : ''}`;
    case 'subscriber.unsubscribed':
      return `Unsubscribed${d.source ? ` (${d.source})` : ''}`;
    case 'subscriber.added_to_group':
      return `Added to group “${d.group?.name ?? 'deleted group'}”`;
    case 'subscriber.removed_from_group':
      return `Removed from group “${d.group?.name ?? 'deleted group'}”`;
    case 'subscriber.bounced':
      return 'Marked as bounced';
    case 'subscriber.complained':
      return 'Marked as complained (spam report)';
    case 'email.sent':
      return <>Sent {campaign(d)}</>;
    case 'email.opened':
      return <>Opened {campaign(d)}</>;
    case 'email.clicked':
      return (
        <>
          Clicked <span className="mono break">{String(d.url ?? 'a link')}</span> in {campaign(d)}
        </>
      );
    case 'email.bounced':
      return <>An email from {campaign(d)} bounced</>;
    case 'form.submitted':
      return `Signed up through the form “${d.form?.name ?? 'deleted form'}”`;
    case 'automation.completed':
      return 'Finished an automation';
    default:
      return type;
  }
}

const COLUMNS: ColumnDef<Item>[] = [
  { header: 'When', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
  { header: 'What', id: 'what', enableSorting: false, cell: ({ row }) => describe(row.original) },
];

export function Activity({ subscriberId }: { subscriberId: string }) {
  const [page, setPage] = useState(1);
  const { data, error } = useQuery({
    queryKey: ['subscribers', 'activity', subscriberId, page],
    queryFn: () => api.get<Page>(`/subscribers/${subscriberId}/activity${qs({ page, per_page: 20 })}`),
  });
  return (
    <>
      <h2>Activity</h2>
      <DataTable
        label="Activity"
        columns={COLUMNS}
        rows={data?.activity}
        error={error}
        empty="Nothing has happened yet."
        rowKey={(e) => e.id}
        paging={data && { page: data.pagination.current_page, lastPage: data.pagination.total_pages, onPage: setPage }}
      />
    </>
  );
}
