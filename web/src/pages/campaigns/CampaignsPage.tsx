// Campaigns: every campaign of the account, newest first, with its audience and how it did; filter by
// status, page through; "New campaign" opens the editor.
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { campaignKeys, listCampaigns } from '../../api/campaigns.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Badge, formatDate, percent, plural } from '../../ui.tsx';
import { STATUS_TONE, type CampaignRow } from './model.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';

const PER_PAGE = 20;
const STATUSES = ['draft', 'scheduled', 'sending', 'sent', 'cancelled'] as const;

export const CAMPAIGN_COLUMNS: ColumnDef<CampaignRow>[] = [
  {
    header: 'Name',
    accessorKey: 'name',
    cell: ({ row: { original: c } }) => (
      <>
        <Link to={`/app/campaigns/${c.id}`}>{c.name}</Link>
        <div className="muted small-text">{c.subject}</div>
      </>
    ),
  },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: ({ row: { original: c } }) => <Badge tone={STATUS_TONE[c.status]}>{c.status}</Badge>,
  },
  {
    header: 'Audience',
    accessorFn: (c) => c.audience.join(', '),
    cell: (c) => (c.getValue() as string) || '—',
  },
  {
    header: 'Recipients',
    accessorKey: 'recipients',
    cell: (c) => (c.getValue() === null ? '—' : (c.getValue() as number).toLocaleString()),
  },
  { header: 'Sent', accessorKey: 'sent', cell: (c) => (c.getValue() as number).toLocaleString() },
  { header: 'Opened', accessorKey: 'open_rate', cell: (c) => percent(c.getValue() as number | null) },
  { header: 'Clicked', accessorKey: 'click_rate', cell: (c) => percent(c.getValue() as number | null) },
  {
    header: 'Date',
    id: 'date',
    accessorFn: (c) => c.sent_at ?? c.scheduled_at ?? c.created_at,
    cell: ({ row: { original: c } }) =>
      c.sent_at
        ? `Sent ${formatDate(c.sent_at)}`
        : c.scheduled_at
          ? `For ${formatDate(c.scheduled_at)}`
          : `Created ${formatDate(c.created_at)}`,
  },
];

export function CampaignsPage({ canEdit }: { canEdit: boolean }) {
  // the filter and page live in the address, so Back and a shared link keep them
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const set = (next: { status?: string; page?: number }) => {
    const p = new URLSearchParams();
    const s = next.status ?? status;
    if (s) p.set('status', s);
    if ((next.page ?? 1) > 1) p.set('page', String(next.page));
    setParams(p);
  };
  const { data, error } = useQuery({
    queryKey: campaignKeys.list(status, page),
    queryFn: () => listCampaigns({ status, page, per_page: PER_PAGE }),
    // sending campaigns move by themselves
    refetchInterval: (q) => (q.state.data?.campaigns.some((c) => c.status === 'sending') ? 3000 : false),
  });
  return (
    <section>
      <PageHeader title="Campaigns">
        {canEdit && (
          <Link className="button" to="/app/campaigns/new">
            New campaign
          </Link>
        )}
      </PageHeader>
      <div className="toolbar">
        <label>
          <span className="visually-hidden">Status</span>
          <select value={status} onChange={(e) => set({ status: e.target.value, page: 1 })}>
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0).toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </label>
        {data && (
          <span className="muted" aria-live="polite">
            {plural(data.pagination.total_count, 'campaign')}
          </span>
        )}
      </div>
      <DataTable
        label="Campaigns"
        columns={CAMPAIGN_COLUMNS}
        rows={data?.campaigns}
        error={error}
        empty={status ? `No ${status} campaigns.` : 'No campaigns yet. Write your first one with “New campaign”.'}
        rowKey={(c) => c.id}
        paging={pagingOf(data?.pagination, (p) => set({ page: p }))}
      />
    </section>
  );
}
