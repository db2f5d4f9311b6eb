// Webhooks: the list with each one's last delivery, create and edit (URL and an events checklist whose
// lines come from the server's list), the signing secret once after creating, a test event, and a
// webhook's delivery log where any delivery can be replayed (queued; the log refreshes until it is sent).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, qs } from '../api.ts';
import { actionsColumn, DataTable, lastPageOf, type ColumnDef } from '../lib/table.tsx';
import { Alert, Badge, Field, fieldError, formatDate, Loading } from '../ui.tsx';

interface Hook {
  id: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  last_delivery: { at: string; status_code: number | null } | null;
  created_at: string;
}
interface Attempt {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
  created_at: string;
}
interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  is_test: boolean;
  replay_of: string | null;
  attempt_count: number;
  created_at: string;
  attempts: Attempt[];
}
interface Meta {
  current_page: number;
  last_page: number;
  total: number;
}
interface TestResult {
  status: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

const codeTone = (code: number | null | undefined) => (code && code >= 200 && code < 300 ? 'good' : 'bad');

export function Webhooks({ canManage }: { canManage: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const { data, error } = useQuery({
    queryKey: ['webhooks', page],
    queryFn: () => api.get<{ webhooks: Hook[]; meta: Meta }>(`/webhooks${qs({ page })}`),
  });
  const columns: ColumnDef<Hook>[] = [
    { header: 'Name', accessorKey: 'name', cell: ({ row: { original: h } }) => <Link to={h.id}>{h.name}</Link> },
    { header: 'URL', accessorKey: 'url', meta: { className: 'mono' } },
    { header: 'Events', enableSorting: false, cell: ({ row }) => row.original.events.join(', ') },
    {
      header: 'State',
      accessorKey: 'enabled',
      cell: ({ row: { original: h } }) =>
        h.enabled ? <Badge tone="good">Enabled</Badge> : <Badge tone="warn">Disabled</Badge>,
    },
    {
      header: 'Last delivery',
      enableSorting: false,
      cell: ({ row: { original: h } }) =>
        h.last_delivery ? (
          <>
            <Badge tone={codeTone(h.last_delivery.status_code)}>{h.last_delivery.status_code ?? 'no answer'}</Badge>{' '}
            {formatDate(h.last_delivery.at)}
          </>
        ) : (
          'Never'
        ),
    },
  ];
  return (
    <section>
      <h1>Webhooks</h1>
      <p className="muted">
        Each webhook receives a signed <code>POST</code> (Standard Webhooks) for the events it subscribes to.
      </p>
      {secret && <NewSecret {...secret} onDone={() => setSecret(undefined)} />}
      {canManage ? (
        creating ? (
          <WebhookForm
            onCancel={() => setCreating(false)}
            onSaved={(h) => {
              setCreating(false);
              setSecret({ name: h.name, secret: h.secret! });
              void client.invalidateQueries({ queryKey: ['webhooks'] });
            }}
          />
        ) : (
          !secret && (
            <button type="button" onClick={() => setCreating(true)}>
              New webhook
            </button>
          )
        )
      ) : (
        <Alert kind="warning">Your role can see webhooks and their deliveries but not change them.</Alert>
      )}
      <h2>Webhooks of this account</h2>
      <DataTable
        label="Webhooks"
        columns={columns}
        rows={data?.webhooks}
        error={error}
        empty="No webhooks yet."
        rowKey={(h) => h.id}
        paging={{ page, lastPage: data ? lastPageOf(data.meta.total, 25) : 1, onPage: setPage }}
      />
    </section>
  );
}

/** Create (no `hook`) or edit. The event lines are the server's: one per event type, with what it means. */
function WebhookForm({
  hook,
  onSaved,
  onCancel,
}: {
  hook?: Hook;
  onSaved: (h: Hook & { secret?: string }) => void;
  onCancel: () => void;
}) {
  const catalog = useQuery({
    queryKey: ['webhook-events'],
    queryFn: () => api.get<{ type: string; description: string }[]>('/webhook-events'),
    staleTime: Infinity,
  });
  const [events, setEvents] = useState<string[]>(hook?.events ?? []);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    const body = { url: String(form.get('url') ?? '').trim(), events, ...(name && { name }) };
    setBusy(true);
    setError(undefined);
    try {
      onSaved(hook ? await api.put<Hook>(`/webhooks/${hook.id}`, body) : await api.post<Hook>('/webhooks', body));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (type: string, on: boolean) => setEvents((l) => (on ? [...l, type] : l.filter((x) => x !== type)));
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">{hook ? 'Edit webhook' : 'New webhook'}</h2>
      <Alert error={error} shown={['name', 'url', 'events']} />
      <Field label="URL" error={fieldError(error, 'url')} hint="An http(s) address that answers 2xx within 10 s.">
        {(id, d) => <input id={id} name="url" type="url" required defaultValue={hook?.url} aria-describedby={d} />}
      </Field>
      <Field label="Name" error={fieldError(error, 'name')} hint="Optional; the URL's host by default.">
        {(id, d) => <input id={id} name="name" maxLength={255} defaultValue={hook?.name} aria-describedby={d} />}
      </Field>
      <fieldset>
        <legend>Events</legend>
        {fieldError(error, 'events') && <p className="field-error">{fieldError(error, 'events')![0]}</p>}
        {catalog.error ? <Alert error={catalog.error} /> : !catalog.data && <Loading />}
        {catalog.data?.map((e) => (
          <label className="check" key={e.type}>
            <input
              type="checkbox"
              checked={events.includes(e.type)}
              onChange={(x) => toggle(e.type, x.target.checked)}
            />{' '}
            <code>{e.type}</code> <span className="muted">{e.description}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : hook ? 'Save webhook' : 'Create webhook'}
      </button>{' '}
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
    } catch {
      // the clipboard API needs a secure context; select + execCommand works on plain http too
      input.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div className="card new-key" role="region" aria-labelledby="new-secret-title">
      <h2 id="new-secret-title">Webhook “{name}” created</h2>
      <Alert kind="warning">
        Copy the signing secret now: the dashboard shows it only this once. Your receiver verifies each request with it.
      </Alert>
      <div className="copy-row">
        <input ref={input} aria-label="Signing secret" readOnly value={secret} className="mono" />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" className="secondary" onClick={onDone}>
        I have stored the secret
      </button>
    </div>
  );
}

/** One webhook: edit, delete, a test event and the delivery log with Replay. */
export function WebhookView({ id, canManage }: { id: string; canManage: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [tested, setTested] = useState<TestResult>();
  const [error, setError] = useState<unknown>();
  const hook = useQuery({ queryKey: ['webhooks', 'one', id], queryFn: () => api.get<Hook>(`/webhooks/${id}`) });
  const refresh = () => void client.invalidateQueries({ queryKey: ['webhooks'] });
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
      <h1>{h.name}</h1>
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
                  setTested(await api.post<TestResult>(`/webhooks/${id}/test`));
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
                onClick={() => run(() => api.put(`/webhooks/${id}`, { enabled: false }).then(refresh))}
              >
                Disable
              </button>
            ) : (
              <button
                type="button"
                className="secondary"
                onClick={() => run(() => api.put(`/webhooks/${id}`, { enabled: true }).then(refresh))}
              >
                Enable
              </button>
            )}{' '}
            {confirming ? (
              <span className="confirm" role="group" aria-label="Confirm deleting">
                <span>Delete “{h.name}” with its delivery log?</span>
                <button
                  type="button"
                  className="danger small"
                  onClick={() => run(() => api.del(`/webhooks/${id}`).then(() => navigate('/app/webhooks')))}
                >
                  Yes, delete
                </button>
                <button type="button" className="secondary small" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </span>
            ) : (
              <button type="button" className="danger-outline" onClick={() => setConfirming(true)}>
                Delete
              </button>
            )}
          </p>
        ))}
      <p>
        Events: <code>{h.events.join(', ')}</code>
      </p>
      <DeliveryLog id={id} canManage={canManage && h.enabled} onError={setError} />
    </section>
  );
}

function DeliveryLog({ id, canManage, onError }: { id: string; canManage: boolean; onError: (e: unknown) => void }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const log = useQuery({
    queryKey: ['webhooks', 'deliveries', id, page],
    queryFn: () => api.get<{ deliveries: Delivery[]; meta: Meta }>(`/webhooks/${id}/deliveries${qs({ page })}`),
    // a queued delivery or replay is sent within a poll of the worker: follow it until it is done
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.status === 'pending') ? 1000 : false),
  });
  const replay = async (d: Delivery) => {
    onError(undefined);
    try {
      await api.post(`/webhooks/${id}/deliveries/${d.id}/replay`);
      setPage(1);
      await client.invalidateQueries({ queryKey: ['webhooks'] });
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
      <DataTable
        label="Deliveries"
        columns={columns}
        rows={log.data?.deliveries}
        error={log.error}
        empty="No deliveries yet."
        rowKey={(d) => d.id}
        rowProps={(d) => ({ 'data-delivery-id': d.id, 'data-status': d.status })}
        paging={{ page, lastPage: log.data?.meta.last_page ?? 1, onPage: setPage }}
      />
    </>
  );
}
