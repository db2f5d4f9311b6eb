// Signup forms: list with their numbers, create one (type, fields, groups, double opt-in, messages) and
// open one to copy its hosted URL or embed snippet. Editing after creation is done through the API/MCP.
import { useState, type FormEvent } from 'react';
import { api, ApiError, qs, type Audience } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Alert, Badge, Field, formatDate, Loading, Pager, useLoad } from '../ui.tsx';

interface Form {
  id: string;
  name: string;
  type: 'hosted' | 'embedded' | 'popup';
  group_ids: string[];
  double_opt_in: boolean;
  fields: { key: string; label: string; required: boolean }[];
  success_message: string;
  redirect_url: string | null;
  active: boolean;
  stats: { views: number; submissions: number; confirmations: number };
  created_at: string;
}

export function Forms({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.get<{ forms: Form[]; total: number; per_page: number }>(`/forms${qs({ page })}`),
    [page],
  );
  const audience = useLoad(() => api.get<Audience>('/audience'), []);
  return (
    <section>
      <h1>Forms</h1>
      {canEdit && audience.data && <CreateForm audience={audience.data} />}
      <h2>Your forms</h2>
      <Alert error={list.error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : list.data.forms.length === 0 ? (
        <p className="empty">No forms yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data" aria-label="Forms">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Views</th>
                  <th scope="col">Submissions</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.forms.map((f) => (
                  <tr key={f.id}>
                    <td>
                      <Link href={`/app/forms/${f.id}`}>{f.name}</Link>
                    </td>
                    <td>
                      {f.type}
                      {f.double_opt_in ? ' · double opt-in' : ''}
                    </td>
                    <td>{f.active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}</td>
                    <td>{f.stats.views.toLocaleString()}</td>
                    <td>{f.stats.submissions.toLocaleString()}</td>
                    <td>{formatDate(f.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} lastPage={Math.max(1, Math.ceil(list.data.total / list.data.per_page))} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function CreateForm({ audience }: { audience: Audience }) {
  const [error, setError] = useState<unknown>();
  const fieldErrors = error instanceof ApiError ? error.fields : {};
  const choices = [
    { key: 'first_name', label: 'First name' },
    { key: 'last_name', label: 'Last name' },
    { key: 'phone', label: 'Phone' },
    ...audience.fields.filter((f) => f.key).map((f) => ({ key: f.key!, label: f.label })),
  ];
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(undefined);
    try {
      const form = await api.post<Form>('/forms', {
        name: f.get('name'),
        type: f.get('type'),
        double_opt_in: f.get('double_opt_in') === 'on',
        group_ids: f.getAll('group_ids'),
        fields: [
          { key: 'email', required: true },
          ...choices
            .filter((c) => f.get(`field_${c.key}`) === 'on')
            .map((c) => ({ key: c.key, required: f.get(`required_${c.key}`) === 'on' })),
        ],
        success_message: String(f.get('success_message') || '').trim() || undefined,
        redirect_url: String(f.get('redirect_url') || '').trim() || null,
      });
      navigate(`/app/forms/${form.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="new-form-title">
      <h2 id="new-form-title">New form</h2>
      <Alert error={error} />
      <div className="row">
        <Field label="Form name" error={fieldErrors.name}>
          {(id, d) => <input id={id} name="name" required aria-describedby={d} />}
        </Field>
        <Field label="Type" error={fieldErrors.type}>
          {(id) => (
            <select id={id} name="type" defaultValue="hosted">
              <option value="hosted">Hosted page</option>
              <option value="embedded">Embedded in your site</option>
              <option value="popup">Popup</option>
            </select>
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Fields (email is always asked and required)</legend>
        <table className="scope-grid">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Ask</th>
              <th scope="col">Required</th>
            </tr>
          </thead>
          <tbody>
            {choices.map((c) => (
              <tr key={c.key}>
                <th scope="row">{c.label}</th>
                <td>
                  <input
                    type="checkbox"
                    name={`field_${c.key}`}
                    aria-label={`Ask ${c.label}`}
                    defaultChecked={c.key === 'first_name'}
                  />
                </td>
                <td>
                  <input type="checkbox" name={`required_${c.key}`} aria-label={`${c.label} required`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </fieldset>
      {audience.groups.length > 0 && (
        <fieldset>
          <legend>Add signups to groups</legend>
          {audience.groups.map((g) => (
            <label className="check" key={g.id}>
              <input type="checkbox" name="group_ids" value={g.id} /> {g.name}
            </label>
          ))}
        </fieldset>
      )}
      <label className="check">
        <input type="checkbox" name="double_opt_in" /> Double opt-in (send a confirmation link first)
      </label>
      <Field label="Success message" error={fieldErrors.success_message}>
        {(id, d) => (
          <input id={id} name="success_message" placeholder="Thank you for subscribing!" aria-describedby={d} />
        )}
      </Field>
      <Field
        label="Redirect after signup"
        error={fieldErrors.redirect_url}
        hint="Optional: an http(s) URL to send people to instead of the message."
      >
        {(id, d) => <input id={id} name="redirect_url" type="url" aria-describedby={d} />}
      </Field>
      <button type="submit">Create form</button>
    </form>
  );
}

export function FormView({ id }: { id: string }) {
  const { data, error } = useLoad(
    () => api.get<Form & { url: string; embed: string }>(`/forms/${encodeURIComponent(id)}`),
    [id],
  );
  return (
    <section>
      <p>
        <Link href="/app/forms">← Forms</Link>
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <h1>{data.name}</h1>
          <div className="card">
            <dl className="facts">
              <dt>Type</dt>
              <dd>{data.type}</dd>
              <dt>Status</dt>
              <dd>{data.active ? 'active' : 'inactive'}</dd>
              <dt>Double opt-in</dt>
              <dd>{data.double_opt_in ? 'yes' : 'no'}</dd>
              <dt>Fields</dt>
              <dd>{data.fields.map((f) => `${f.label}${f.required ? ' *' : ''}`).join(', ')}</dd>
              <dt>Numbers</dt>
              <dd>
                {data.stats.views} views · {data.stats.submissions} submissions · {data.stats.confirmations}{' '}
                confirmations
              </dd>
            </dl>
          </div>
          <h2>Hosted page</h2>
          <p>
            <a href={data.url} target="_blank" rel="noreferrer" className="mono">
              {data.url}
            </a>
          </p>
          <h2>Embed in your site</h2>
          <textarea
            readOnly
            aria-label="Embed snippet"
            className="mono"
            rows={8}
            value={data.embed}
            onFocus={(e) => e.target.select()}
          />
        </>
      )}
    </section>
  );
}
