// One signup form (/app/forms/:id): its numbers, hosted URL and embed snippet (with Copy), and for members
// who can edit: Deactivate / Reactivate (an inactive form's page and endpoint answer 404), Edit (every
// setting, PUT /app/api/forms/:id) and Delete after a confirmation.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, type Audience } from '../../api.ts';
import { Alert, Badge, formatDate, Loading, plural } from '../../ui.tsx';
import { fieldChoices, formBody, FormSettings } from './FormSettings.tsx';
import type { FormWithEmbed } from './types.ts';

const SHOWN = ['name', 'type', 'fields', 'group_ids', 'success_message', 'redirect_url'];

export function FormView({ id, canEdit }: { id: string; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = `/forms/${encodeURIComponent(id)}`;
  const key = ['forms', 'one', id];
  const { data, error } = useQuery({ queryKey: key, queryFn: () => api.get<FormWithEmbed>(path) });
  const audience = useQuery({ queryKey: ['audience'], queryFn: () => api.get<Audience>('/audience') });
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const stored = async (form: FormWithEmbed, message: string) => {
    client.setQueryData(key, form);
    await client.invalidateQueries({ queryKey: ['forms'], predicate: (q) => q.queryKey[1] !== 'one' });
    setNotice(message);
  };
  const setActive = async (active: boolean) => {
    setActionError(undefined);
    try {
      await stored(
        await api.put<FormWithEmbed>(path, { active }),
        active ? 'The form is active again.' : 'The form is deactivated: its page and endpoint are offline.',
      );
    } catch (err) {
      setActionError(err);
    }
  };
  const remove = async () => {
    if (!data || !confirm(`Delete the form “${data.name}”? Its page goes offline; subscribers stay.`)) return;
    try {
      await api.del(path);
      await client.invalidateQueries({ queryKey: ['forms'] });
      navigate('/app/forms');
    } catch (err) {
      setActionError(err);
    }
  };
  return (
    <section>
      <p>
        <Link to="/app/forms">← Forms</Link>
      </p>
      <Alert error={error ?? actionError} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <div className="title-row">
            <h1>
              {data.name} {data.active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}
            </h1>
            {canEdit && (
              <div className="buttons">
                <button type="button" className="secondary small" onClick={() => setActive(!data.active)}>
                  {data.active ? 'Deactivate' : 'Reactivate'}
                </button>
                <button type="button" className="danger-outline small" onClick={remove}>
                  Delete form
                </button>
              </div>
            )}
          </div>
          {notice && <Alert kind="success">{notice}</Alert>}
          <div className="card">
            <dl className="facts">
              <dt>Type</dt>
              <dd>{data.type}</dd>
              <dt>Double opt-in</dt>
              <dd>{data.double_opt_in ? 'yes' : 'no'}</dd>
              <dt>Fields</dt>
              <dd>{data.fields.map((f) => `${f.label}${f.required ? ' *' : ''}`).join(', ')}</dd>
              <dt>Groups</dt>
              <dd>{groupNames(data.group_ids, audience.data) || 'none'}</dd>
              <dt>Numbers</dt>
              <dd>
                {plural(data.stats.views, 'view')} · {plural(data.stats.submissions, 'submission')} ·{' '}
                {plural(data.stats.confirmations, 'confirmation')}
              </dd>
              <dt>Changed</dt>
              <dd>{formatDate(data.updated_at)}</dd>
            </dl>
          </div>
          <h2>Hosted page</h2>
          <p className="break">
            <a href={data.url} target="_blank" rel="noreferrer" className="mono">
              {data.url}
            </a>
            {!data.active && <span className="muted"> (offline while the form is inactive)</span>}
          </p>
          <Embed snippet={data.embed} />
          {canEdit && audience.data && (
            <EditForm key={data.updated_at} form={data} audience={audience.data} onSaved={stored} />
          )}
        </>
      )}
    </section>
  );
}

function groupNames(ids: string[], audience: Audience | undefined): string {
  return ids.map((g) => audience?.groups.find((x) => x.id === g)?.name ?? g).join(', ');
}

function Embed({ snippet }: { snippet: string }) {
  const box = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet);
    } catch {
      // the clipboard API needs a secure context; select + execCommand works on plain http too
      box.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <>
      <div className="title-row">
        <h2>Embed in your site</h2>
        <button type="button" className="secondary small" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <textarea
        ref={box}
        readOnly
        aria-label="Embed snippet"
        className="mono"
        rows={8}
        value={snippet}
        onFocus={(e) => e.target.select()}
      />
      <p className="hint" aria-live="polite">
        {copied
          ? 'Copied. Paste it into your site’s HTML where the form should appear.'
          : 'Paste this into your site’s HTML where the form should appear; it posts to the hosted page’s address.'}
      </p>
    </>
  );
}

function EditForm({
  form,
  audience,
  onSaved,
}: {
  form: FormWithEmbed;
  audience: Audience;
  onSaved: (form: FormWithEmbed, message: string) => Promise<void>;
}) {
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    try {
      const body = formBody(new FormData(e.currentTarget), fieldChoices(audience), form);
      await onSaved(await api.put<FormWithEmbed>(`/forms/${form.id}`, body), 'Form saved.');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="edit-form-title">
      <h2 id="edit-form-title">Edit form</h2>
      <Alert error={error} shown={SHOWN} />
      <FormSettings audience={audience} initial={form} error={error} />
      <button type="submit">Save form</button>
    </form>
  );
}
