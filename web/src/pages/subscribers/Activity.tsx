// A subscriber's history from the event log, newest first (GET /app/api/subscribers/:id/activity, the
// domain's activity.ofSubscriber, as MCP get_subscriber_activity): emails sent, opened and clicked, group
// changes, form sign-ups and status changes, each in words.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { subscriberActivity, subscriberKeys, type ActivityItem as Item } from '../../api/subscribers.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { formatDate } from '../../ui.tsx';

/** The campaign or automation by name where the dashboard API found it ("June newsletter"). */
function campaign(d: Record<string, any>, name?: string): ReactNode {
  if (typeof d.campaign_id === 'string')
    return <Link to={`/app/campaigns/${d.campaign_id}`}>{name ? `“${name}”` : 'a campaign'}</Link>;
  if (typeof d.automation_id === 'string')
    return name ? <Link to={`/app/automations/${d.automation_id}`}>{`“${name}”`}</Link> : 'an automation';
  return 'an email';
}

/** One event in words. */
export function describe({ type, data: d, source_name: name }: Item): ReactNode {
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
      return <>Sent {campaign(d, name)}</>;
    case 'email.opened':
      return <>Opened {campaign(d, name)}</>;
    case 'email.clicked':
      return (
        <>
          Clicked <span className="mono break">{String(d.url ?? 'a link')}</span> in {campaign(d, name)}
        </>
      );
    case 'email.bounced':
      return <>An email from {campaign(d, name)} bounced</>;
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
    queryKey: subscriberKeys.activity(subscriberId, page),
    queryFn: () => subscriberActivity(subscriberId, { page, per_page: 20 }),
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
        paging={pagingOf(data?.pagination, setPage)}
      />
    </>
  );
}
