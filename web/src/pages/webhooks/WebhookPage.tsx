// One webhook: its URL and events, edit, enable or disable, a test event, delete after a confirmation, and
// its delivery log where any delivery can be replayed (queued; the log refreshes until it is sent).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  deleteWebhook,
  getWebhook,
  listDeliveries,
  replayDelivery,
  testWebhook,
  type DeliveryFilter,
  updateWebhook,
  webhookEvents,
  webhookKeys,
  type Delivery,
  type TestResult,
} from '../../api/webhooks.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { actionsColumn, DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, formatDate, Loading } from '../../ui.tsx';
import { WebhookForm } from './WebhookForm.tsx';

export function WebhookPage({ id, canManage }: { id: string; canManage: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [tested, setTested] = useState<TestResult>();
  const [error, setError] = useState<unknown>();
  const hook = useQuery({ queryKey: webhookKeys.one(id), queryFn: () => getWebhook(id) });
  const refresh = () => void client.invalidateQueries({ queryKey: webhookKeys.all });
  const run = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(err);
    }
  };
  if (hook.error) return <Alert error={hook.error} />;
  if (!hook.data) return <Loading />;
  const h = hook.data;
  return (
    <section>
      <p>
        <Link to="/app/webhooks">← Webhooks</Link>
      </p>
      <PageHeader title={h.name} />
      <p className="mono">{h.url}</p>
      {!h.enabled && <Alert kind="warning">Disabled{h.disabled_reason ? `: ${h.disabled_reason}` : ''}</Alert>}
      <Alert error={error} />
      {tested && (
        <Alert kind={tested.status === 'delivered' ? 'success' : 'error'}>
          Test event {tested.status}: {tested.status_code ?? tested.error ?? 'no answer'} in {tested.duration_ms} ms
        </Alert>
      )}
      {canManage &&
        (editing ? (
          <WebhookForm
            hook={h}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              refresh();
            }}
          />
        ) : (
          <p className="actions">
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>{' '}
            <button
              type="button"
              className="secondary"
              onClick={() =>
                run(async () => {
                  setTested(await testWebhook(id));
                  refresh();
                })
              }
            >
              Send a test event
            </button>{' '}
            {h.enabled ? (
              <button
                type="button"
                className="secondary"
                onClick={() => run(() => updateWebhook(id, { enabled: false }).then(refresh))}
              >
                Disable
              </button>
            ) : (
              <button
                type="button"
                className="secondary"
                onClick={() => run(() => updateWebhook(id, { enabled: true }).then(refresh))}
              >
                Enable
              </button>
            )}{' '}
            <ConfirmButton
              label="Delete"
              name={`Delete ${h.name}`}
              question={`Delete “${h.name}” with its delivery log?`}
              yes="Yes, delete"
              size="normal"
              onConfirm={async () => {
                await deleteWebhook(id);
                await client.invalidateQueries({ queryKey: webhookKeys.all });
                navigate('/app/webhooks');
              }}
            />
          </p>
        ))}
      <p>
        Events: <code>{h.events.join(', ')}</code>
      </p>
      <DeliveryLog id={id} events={h.events} canManage={canManage && h.enabled} onError={setError} />
    </section>
  );
}

// a picked day, as the instant its first or last moment is in the browser's time zone
const dayStart = (day: string) => (day ? new Date(`${day}T00:00:00`).toISOString() : undefined);
const dayEnd = (day: string) => (day ? new Date(`${day}T23:59:59.999`).toISOString() : undefined);

function DeliveryLog({
  id,
  events,
  canManage,
  onError,
}: {
  id: string;
  events: string[];
  canManage: boolean;
  onError: (e: unknown) => void;
}) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const value = (name: string) => String(f.get(name) ?? '') || undefined;
    setFilter({
      status: value('status'),
      event: value('event'),
      since: dayStart(String(f.get('from') ?? '')),
      until: dayEnd(String(f.get('to') ?? '')),
    });
    setPage(1);
  };
  // "*" subscribes to every type: then any type of the catalog can be in the log
  const everything = events.includes('*');
  const catalog = useQuery({
    queryKey: webhookKeys.events,
    queryFn: webhookEvents,
    staleTime: Infinity,
    enabled: everything,
  });
  const eventChoices = everything ? (catalog.data ?? []).map((e) => e.type).filter((t) => t !== '*') : events;
  const log = useQuery({
    queryKey: webhookKeys.deliveries(id, page, filter),
    queryFn: () => listDeliveries(id, { page, ...filter }),
    // a queued delivery or replay is sent within a poll of the worker: follow it until it is done
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.status === 'pending') ? 1000 : false),
  });
  const replay = async (d: Delivery) => {
    onError(undefined);
    try {
      await replayDelivery(id, d.id);
      setPage(1);
      await client.invalidateQueries({ queryKey: webhookKeys.all });
    } catch (err) {
      onError(err);
    }
  };
  const last = (d: Delivery) => d.attempts[d.attempts.length - 1];
  const columns: ColumnDef<Delivery>[] = [
    { header: 'Time', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
    {
      header: 'Event',
      accessorKey: 'event_type',
      cell: ({ row: { original: d } }) => (
        <>
          <code>{d.event_type}</code>
          {d.replay_of && <Badge>replay</Badge>}
        </>
      ),
    },
    {
      header: 'Status',
      accessorKey: 'status',
      cell: ({ row: { original: d } }) => {
        const code = last(d)?.status_code;
        const tone = d.status === 'delivered' ? 'good' : d.status === 'failed' ? 'bad' : 'neutral';
        return <Badge tone={tone}>{code ? `${code} ${d.status}` : d.status}</Badge>;
      },
    },
    {
      header: 'Duration',
      enableSorting: false,
      cell: ({ row }) => (last(row.original) ? `${last(row.original)!.duration_ms} ms` : '—'),
    },
    { header: 'Attempt', accessorKey: 'attempt_count' },
    {
      header: 'Response',
      enableSorting: false,
      meta: { className: 'mono' },
      cell: ({ row }) => {
        const a = last(row.original);
        const text = a?.error ?? a?.response ?? '';
        return <span title={text}>{text.length > 80 ? `${text.slice(0, 80)}…` : text}</span>;
      },
    },
  ];
  if (canManage)
    columns.push(
      actionsColumn((d) => (
        <button
          type="button"
          className="secondary small"
          onClick={() => replay(d)}
          aria-label={`Replay ${d.event_type} of ${formatDate(d.created_at)}`}
        >
          Replay
        </button>
      )),
    );
  return (
    <>
      <h2>Delivery log</h2>
      <form className="toolbar filters" role="search" aria-label="Filter deliveries" onSubmit={onFilter}>
        <label>
          <span className="visually-hidden">Event</span>
          <select name="event" defaultValue="">
            <option value="">All events</option>
            {eventChoices.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="visually-hidden">Status</span>
          <select name="status" defaultValue="">
            <option value="">All statuses</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <label>
          From <input type="date" name="from" />
        </label>
        <label>
          To <input type="date" name="to" />
        </label>
        <button type="submit" className="secondary">
          Filter
        </button>
      </form>
      <DataTable
        label="Deliveries"
        columns={columns}
        rows={log.data?.deliveries}
        error={log.error}
        empty={Object.values(filter).some(Boolean) ? 'No delivery matches these filters.' : 'No deliveries yet.'}
        rowKey={(d) => d.id}
        rowProps={(d) => ({ 'data-delivery-id': d.id, 'data-status': d.status })}
        paging={pagingOf(log.data?.pagination, setPage)}
      />
    </>
  );
}
