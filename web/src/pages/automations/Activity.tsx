// An automation's activity: how each of its emails did (one line per send-email step) and every run, one
// per subscriber and trigger, newest first, with where it stands; filter runs by status and page through.
// Both refresh by themselves while runs are active.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { automationKeys, listRuns, stepEmails } from '../../api/automations.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Badge, formatDate, plural } from '../../ui.tsx';
import {
  automationKey,
  RUN_TONE,
  STEP_LABELS,
  stepName,
  type Automation,
  type Run,
  type RunStatus,
  type StepEmails,
} from './model.ts';

const PER_PAGE = 20;
const STATUSES: RunStatus[] = ['active', 'completed', 'canceled', 'failed'];

const count = (n: number) => n.toLocaleString();
const withUnique = (total: number, unique: number) => (total === 0 ? '0' : `${count(total)} (${count(unique)} unique)`);

const EMAIL_COLUMNS: ColumnDef<StepEmails>[] = [
  { header: 'Step', accessorKey: 'path', cell: (c) => stepName(c.getValue() as string) },
  {
    header: 'Subject',
    accessorKey: 'subject',
    cell: (c) => (c.getValue() as string | null) ?? <span className="muted">(step removed)</span>,
  },
  { header: 'Sent', accessorKey: 'sent', cell: (c) => count(c.getValue() as number) },
  { header: 'Opens', accessorKey: 'opens', cell: ({ row: { original: e } }) => withUnique(e.opens, e.unique_opens) },
  {
    header: 'Clicks',
    accessorKey: 'clicks',
    cell: ({ row: { original: e } }) => withUnique(e.clicks, e.unique_clicks),
  },
  { header: 'Unsubscribes', accessorKey: 'unsubscribes', cell: (c) => count(c.getValue() as number) },
  {
    header: 'Bounces',
    accessorKey: 'bounces',
    cell: ({ row: { original: e } }) =>
      e.soft_bounces ? `${count(e.bounces)} (+${count(e.soft_bounces)} soft)` : count(e.bounces),
  },
  { header: 'Complaints', accessorKey: 'complaints', cell: (c) => count(c.getValue() as number) },
  { header: 'Failed', accessorKey: 'failed', cell: (c) => count(c.getValue() as number) },
];

const RUN_COLUMNS: ColumnDef<Run>[] = [
  {
    header: 'Subscriber',
    id: 'email',
    accessorFn: (r) => r.subscriber.email,
    cell: ({ row: { original: r } }) => <Link to={`/app/subscribers/${r.subscriber.id}`}>{r.subscriber.email}</Link>,
  },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: ({ row: { original: r } }) => <Badge tone={RUN_TONE[r.status]}>{r.status}</Badge>,
  },
  {
    header: 'Current step',
    id: 'step',
    accessorFn: (r) => r.current_step?.path ?? '',
    cell: ({ row: { original: r } }) =>
      r.current_step ? (
        <>
          {stepName(r.current_step.path)}
          {r.current_step.type && ` · ${STEP_LABELS[r.current_step.type]}`}
          {r.next_run_at && <div className="muted small-text">until {formatDate(r.next_run_at)}</div>}
        </>
      ) : (
        <span className="muted">—</span>
      ),
  },
  { header: 'Emails', accessorKey: 'emails_sent', cell: (c) => count(c.getValue() as number) },
  { header: 'Started', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
  { header: 'Updated', accessorKey: 'updated_at', cell: (c) => formatDate(c.getValue() as string) },
];

export function Activity({ automation }: { automation: Automation }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const client = useQueryClient();
  const live = automation.stats.active > 0;
  // the counters above were read with the builder: read them again with the activity
  useEffect(() => void client.invalidateQueries({ queryKey: automationKey(automation.id) }), [client, automation.id]);
  const emails = useQuery({
    queryKey: automationKeys.emails(automation.id),
    queryFn: () => stepEmails(automation.id),
    refetchInterval: live ? 3000 : false,
  });
  const runs = useQuery({
    queryKey: automationKeys.runs(automation.id, status, page),
    queryFn: () => listRuns(automation.id, { status, page, per_page: PER_PAGE }),
    refetchInterval: (q) => (live || q.state.data?.runs.some((r) => r.status === 'active') ? 3000 : false),
  });
  return (
    <>
      <section className="card" aria-labelledby="emails-title">
        <h2 id="emails-title">Emails</h2>
        <DataTable
          label="Emails"
          columns={EMAIL_COLUMNS}
          rows={emails.data?.steps}
          error={emails.error}
          empty="This automation sends no email."
          rowKey={(e) => e.path}
        />
      </section>
      <section className="card" aria-labelledby="runs-title">
        <h2 id="runs-title">Runs</h2>
        <div className="toolbar">
          <label>
            <span className="visually-hidden">Run status</span>
            <select
              value={status}
              onChange={(e) => {
                setStatus(e.target.value);
                setPage(1);
              }}
            >
              <option value="">All runs</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.charAt(0).toUpperCase() + s.slice(1)}
                </option>
              ))}
            </select>
          </label>
          {runs.data && (
            <span className="muted" aria-live="polite">
              {plural(runs.data.pagination.total_count, 'run')}
            </span>
          )}
        </div>
        <DataTable
          label="Runs"
          columns={RUN_COLUMNS}
          rows={runs.data?.runs}
          error={runs.error}
          empty={
            status
              ? `No ${status} runs.`
              : automation.enabled
                ? 'No runs yet. A run starts when the trigger next happens.'
                : 'No runs yet. Turn the automation on: runs start when the trigger happens after that.'
          }
          rowKey={(r) => r.id}
          rowProps={(r) => ({ 'data-status': r.status })}
          paging={pagingOf(runs.data?.pagination, setPage)}
        />
      </section>
    </>
  );
}
