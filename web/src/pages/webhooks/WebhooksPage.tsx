// Webhooks: the list with each one's last delivery, create and edit (URL and an events checklist whose
// lines come from the server's list), the signing secret once after creating, a test event, and a
// webhook's delivery log where any delivery can be replayed (queued; the log refreshes until it is sent).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { listWebhooks, webhookKeys, type Hook } from '../../api/webhooks.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, formatDate } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { WebhookForm } from './WebhookForm.tsx';

const codeTone = (code: number | null | undefined) => (code && code >= 200 && code < 300 ? 'good' : 'bad');

export function WebhooksPage({ canManage }: { canManage: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const { data, error } = useQuery({
    queryKey: webhookKeys.page(page),
    queryFn: () => listWebhooks({ page }),
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
      <PageHeader title="Webhooks" />
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
              void client.invalidateQueries({ queryKey: webhookKeys.all });
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
        paging={pagingOf(data?.pagination, setPage)}
      />
    </section>
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
