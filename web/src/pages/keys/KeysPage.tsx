// API keys: list, create (name required, scopes, optional expiry; the raw key is shown once with a copy
// button) and revoke (after a confirmation; the key stops working at once).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import { createKey, keyKeys, listKeys, revokeKey, type ApiKey } from '../../api/keys.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { actionsColumn, DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Badge, Field, formatDate } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const RESOURCES = ['subscribers', 'campaigns', 'groups', 'webhooks', 'automations', 'forms', 'account'] as const;
const LEVELS = [
  ['read', 'Read'],
  ['write', 'Write'],
  ['*', 'All'],
] as const;

export function KeysPage({ canManage }: { canManage: boolean }) {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: keyKeys.all, queryFn: listKeys });
  const reload = () => void client.invalidateQueries({ queryKey: keyKeys.all });
  const [created, setCreated] = useState<ApiKey & { key: string }>();
  return (
    <section>
      <PageHeader title="API keys" />
      <p className="muted">
        Keys authenticate the REST API and the MCP tool endpoint (<code>Authorization: Bearer …</code>). Every route is
        in the <a href="/api/docs">API reference</a> (OpenAPI document: <a href="/api/v1/openapi.json">openapi.json</a>
        ).
      </p>
      {created && <NewKey apiKey={created} onDone={() => setCreated(undefined)} />}
      {canManage ? (
        !created && (
          <CreateKey
            onCreated={(k) => {
              setCreated(k);
              reload();
            }}
          />
        )
      ) : (
        <Alert kind="warning">Your role can see keys but not create or revoke them.</Alert>
      )}
      <h2>Keys of this account</h2>
      <KeyTable keys={data?.keys} error={error} canManage={canManage} onRevoked={reload} />
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: ApiKey & { key: string }) => void }) {
  const [error, setError] = useState<unknown>();
  // a new key starts with nothing: its maker grants what it needs, not everything by default
  const [scopes, setScopes] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const toggle = (scope: string, on: boolean) =>
    setScopes((s) => (on ? [...s.filter((x) => x !== scope), scope] : s.filter((x) => x !== scope)));

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    const name = String(form.get('name') ?? '').trim();
    if (!name) return setError(new ApiError(400, 'Name is required', { name: ['Name is required'] }));
    if (scopes.length === 0)
      return setError(
        new ApiError(400, 'Choose at least one permission', { scopes: ['Choose at least one permission'] }),
      );
    const expires = String(form.get('expires_at') ?? '');
    setBusy(true);
    setError(undefined);
    try {
      const key = await createKey({
        name,
        scopes,
        // the end of the chosen day, in the browser's time zone
        expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
      });
      formEl.reset();
      setScopes([]);
      onCreated(key);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <Alert error={error} />
      <Field label="Name" error={fields.name} hint="What uses this key, e.g. “Website signup” or “Claude agent”.">
        {(id, d) => <input id={id} name="name" required maxLength={100} aria-describedby={d} />}
      </Field>
      <fieldset className="scopes">
        <legend>Permissions</legend>
        {fields.scopes && <p className="field-error">{fields.scopes[0]}</p>}
        <label className="check">
          <input type="checkbox" checked={scopes.includes('*')} onChange={(e) => toggle('*', e.target.checked)} /> Full
          access (<code>*</code>)
        </label>
        <table className="scope-grid">
          <thead>
            <tr>
              <th scope="col">Resource</th>
              {LEVELS.map(([, label]) => (
                <th scope="col" key={label}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {RESOURCES.map((r) => (
              <tr key={r}>
                <th scope="row">{r}</th>
                {LEVELS.map(([level, label]) => {
                  const scope = `${r}:${level}`;
                  return (
                    <td key={level}>
                      <input
                        type="checkbox"
                        aria-label={`${r} ${label.toLowerCase()} (${scope})`}
                        disabled={scopes.includes('*')}
                        checked={scopes.includes(scope) || scopes.includes('*')}
                        onChange={(e) => toggle(scope, e.target.checked)}
                      />
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </fieldset>
      <Field label="Expires on" error={fields.expires_at} hint="Optional. Leave empty for a key that does not expire.">
        {(id, d) => (
          <input
            id={id}
            name="expires_at"
            type="date"
            min={new Date().toISOString().slice(0, 10)}
            aria-describedby={d}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}

function NewKey({ apiKey, onDone }: { apiKey: ApiKey & { key: string }; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(apiKey.key);
    } catch {
      // clipboard API needs a secure context; selecting + execCommand works on plain http too
      input.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div className="card new-key" role="region" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key “{apiKey.name}” created</h2>
      <Alert kind="warning">
        Copy this key now. It is shown only once and cannot be retrieved later; if you lose it, create a new key and
        revoke this one.
      </Alert>
      <div className="copy-row">
        <input
          ref={input}
          id="new-api-key"
          aria-label="New API key"
          readOnly
          value={apiKey.key}
          onFocus={(e) => e.target.select()}
          className="mono"
        />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" className="secondary" onClick={onDone}>
        I have stored the key
      </button>
    </div>
  );
}

function KeyTable({
  keys,
  error: loadError,
  canManage,
  onRevoked,
}: {
  keys: ApiKey[] | undefined;
  error: unknown;
  canManage: boolean;
  onRevoked: () => void;
}) {
  const columns: ColumnDef<ApiKey>[] = [
    { header: 'Name', accessorKey: 'name' },
    { header: 'Key', accessorKey: 'hint', meta: { className: 'mono' } },
    {
      header: 'Scopes',
      enableSorting: false,
      cell: ({ row }) =>
        row.original.scopes.map((s) => (
          <code key={s} className="scope">
            {s}
          </code>
        )),
    },
    { header: 'Created', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
    {
      header: 'Last used',
      accessorKey: 'last_used_at',
      cell: (c) => formatDate(c.getValue() as string | null, 'Never'),
    },
    { header: 'Expires', accessorKey: 'expires_at', cell: (c) => formatDate(c.getValue() as string | null, 'Never') },
    {
      header: 'Status',
      enableSorting: false,
      cell: ({ row: { original: k } }) =>
        k.revoked_at ? (
          <Badge tone="bad">Revoked {formatDate(k.revoked_at)}</Badge>
        ) : k.expires_at !== null && new Date(k.expires_at) <= new Date() ? (
          <Badge tone="warn">Expired</Badge>
        ) : (
          <Badge tone="good">Active</Badge>
        ),
    },
  ];
  if (canManage)
    columns.push(
      actionsColumn(
        (k) =>
          !k.revoked_at && (
            <ConfirmButton
              label="Revoke"
              name={`Revoke ${k.name}`}
              question={`Revoke “${k.name}”? Requests with it will fail at once.`}
              yes="Yes, revoke"
              onConfirm={async () => {
                await revokeKey(k.id);
                onRevoked();
              }}
            />
          ),
      ),
    );
  return (
    <>
      <DataTable
        label="API keys"
        columns={columns}
        rows={keys}
        error={loadError}
        empty="No keys yet."
        rowKey={(k) => k.id}
        rowProps={(k) => ({ 'data-key-id': k.id })}
      />
    </>
  );
}
