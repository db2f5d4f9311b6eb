// One signup form (/app/forms/:id): its numbers, hosted URL and embed snippets (the plain HTML form and the
// pop-up script, with Copy), and for members who can edit: Deactivate / Reactivate (an inactive form's page
// and endpoint answer 404), the designer (FormDesigner.tsx, with its live preview), Edit (every setting,
// PUT /app/api/forms/:id) and Delete after a confirmation.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { audienceKeys, getAudience, type Audience } from '../../api/audience.ts';
import { deleteForm, formKeys, getForm, updateForm, type FormWithEmbed } from '../../api/forms.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Badge, formatDate, Loading, plural } from '../../ui.tsx';
import { FormDesigner } from './FormDesigner.tsx';
import { ConfirmationMail } from './ConfirmationMail.tsx';
import { fieldChoices, formBody, FormSettings } from './FormSettings.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const SHOWN = ['name', 'type', 'fields', 'group_ids', 'success_message', 'redirect_url'];

export function FormPage({ id, canEdit }: { id: string; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const key = formKeys.one(id);
  const { data, error } = useQuery({ queryKey: key, queryFn: () => getForm(id) });
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const stored = async (form: FormWithEmbed, message: string) => {
    client.setQueryData(key, form);
    await client.invalidateQueries({ queryKey: formKeys.all, predicate: (q) => q.queryKey[1] !== 'one' });
    setNotice(message);
  };
  const setActive = async (active: boolean) => {
    setActionError(undefined);
    try {
      await stored(
        await updateForm(id, { active }),
        active ? 'The form is active again.' : 'The form is deactivated: its page and endpoint are offline.',
      );
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
          <PageHeader
            title={
              <>
                {data.name} {data.active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}
              </>
            }
          >
            {canEdit && (
              <div className="buttons">
                <button type="button" className="secondary small" onClick={() => setActive(!data.active)}>
                  {data.active ? 'Deactivate' : 'Reactivate'}
                </button>
                <ConfirmButton
                  label="Delete form"
                  name={`Delete the form ${data.name}`}
                  question={`Delete the form “${data.name}”? Its page goes offline; subscribers stay.`}
                  onConfirm={async () => {
                    await deleteForm(id);
                    await client.invalidateQueries({ queryKey: formKeys.all });
                    navigate('/app/forms');
                  }}
                />
              </div>
            )}
          </PageHeader>
          {notice && <Alert kind="success">{notice}</Alert>}
          <div className="card">
            <dl className="facts">
              <dt>Type</dt>
              <dd>{data.type}</dd>
              <dt>Double opt-in</dt>
              <dd>{data.double_opt_in ? 'yes' : 'no'}</dd>
              <dt>Fields</dt>
              <dd className="break">{data.fields.map((f) => `${f.label}${f.required ? ' *' : ''}`).join(', ')}</dd>
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
          <Embed
            title="Embed in your site"
            label="Embed snippet"
            snippet={data.embed}
            hint="Paste this into your site’s HTML where the form should appear; it posts to the hosted page’s address."
          />
          <Embed
            title="Pop-up or slide-in"
            label="Pop-up script"
            snippet={data.embed_script}
            hint="Paste this before </body>: it opens the form over your page as the design says (delay, scroll or exit intent), once per visit."
          />
          {canEdit && <FormDesigner key={`design-${data.updated_at}`} form={data} onSaved={stored} />}
          {canEdit && (
            <ConfirmationMail
              key={data.id}
              form={data}
              onSaved={async (message) => {
                await client.invalidateQueries({ queryKey: key });
                setNotice(message);
              }}
            />
          )}
          {canEdit && audience.data && (
            <EditForm key={data.updated_at} form={data} audience={audience.data} onSaved={stored} />
          )}
          {/* the confirmation mail's editor goes here, below the form's settings */}
        </>
      )}
    </section>
  );
}

function groupNames(ids: string[], audience: Audience | undefined): string {
  return ids.map((g) => audience?.groups.find((x) => x.id === g)?.name ?? g).join(', ');
}

function Embed({ title, label, snippet, hint }: { title: string; label: string; snippet: string; hint: string }) {
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
        <h2>{title}</h2>
        <button
          type="button"
          className="secondary small"
          onClick={copy}
          aria-label={`${copied ? 'Copied' : 'Copy'} the ${label.toLowerCase()}`}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <textarea
        ref={box}
        readOnly
        aria-label={label}
        className="mono"
        rows={Math.min(8, snippet.split('\n').length + 1)}
        value={snippet}
        onFocus={(e) => e.target.select()}
      />
      <p className="hint" aria-live="polite">
        {copied ? 'Copied. Paste it into your site’s HTML.' : hint}
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
      await onSaved(await updateForm(form.id, body), 'Form saved.');
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
