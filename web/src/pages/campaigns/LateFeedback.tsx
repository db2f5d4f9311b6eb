// The campaign report's late bounces and complaints: reports that relays and mailbox providers mailed back
// to the campaign's return path after the message had been accepted, with the status code and the
// remote server's diagnostic, newest first.
import { useQuery } from '@tanstack/react-query';
import { bounceKeys, listLateFeedback, type LateFeedback, type LateFeedbackKind } from '../../api/bounces.ts';
import { DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Badge, formatDate } from '../../ui.tsx';

const KIND: Record<LateFeedbackKind, { label: string; tone: 'good' | 'bad' | 'warn' | 'neutral' }> = {
  bounced: { label: 'Bounced', tone: 'bad' },
  soft_bounced: { label: 'Soft bounce', tone: 'warn' },
  blocked: { label: 'Blocked (policy)', tone: 'warn' },
  delayed: { label: 'Delayed', tone: 'neutral' },
  complained: { label: 'Complaint', tone: 'bad' },
};

const COLUMNS: ColumnDef<LateFeedback>[] = [
  { header: 'Email', accessorKey: 'email' },
  {
    header: 'What came back',
    accessorKey: 'feedback',
    cell: (c) => {
      const k = KIND[c.getValue() as LateFeedbackKind];
      return <Badge tone={k.tone}>{k.label}</Badge>;
    },
  },
  { header: 'Status', accessorKey: 'feedback_status', cell: (c) => <code>{(c.getValue() as string) ?? '—'}</code> },
  {
    header: 'Diagnostic',
    accessorKey: 'feedback_detail',
    enableSorting: false,
    cell: (c) => <span className="break small-text">{(c.getValue() as string) ?? '—'}</span>,
  },
  { header: 'Received', accessorKey: 'feedback_at', cell: (c) => formatDate(c.getValue() as string) },
];

export function LateFeedbackList({ id, live }: { id: string; live: boolean }) {
  const list = useQuery({
    queryKey: bounceKeys.campaign(id),
    queryFn: () => listLateFeedback(id),
    refetchInterval: live ? 10_000 : 60_000,
  });
  return (
    <>
      <h3>Late bounces and complaints</h3>
      <p className="muted small-text">
        Reports mailed back after a relay had accepted the message: delivery failures (a permanent one bounces the
        subscriber, a temporary one counts toward their soft-bounce limit, a policy block is recorded only) and abuse
        complaints (the subscriber is suppressed).
      </p>
      <DataTable
        label="Late bounces and complaints"
        columns={COLUMNS}
        rows={list.data?.items}
        error={list.error}
        empty="Nothing came back later."
        rowKey={(r) => r.subscriber_id + r.feedback_at}
      />
    </>
  );
}
