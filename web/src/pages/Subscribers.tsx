// Subscribers: search by email or name, filter by status, page through; add one by hand.
import { useState, type FormEvent } from 'react';
import { api, ApiError, qs, type Subscriber } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Alert, Badge, Field, formatDate, Loading, Pager, useLoad } from '../ui.tsx';

interface Page {
  subscribers: Subscriber[];
  pagination: { current_page: number; total_pages: number; total_count: number; per_page: number };
}

export const STATUS_TONE: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  active: 'good',
  unsubscribed: 'neutral',
  bounced: 'bad',
  complained: 'warn',
};

export function Subscribers({ canEdit }: { canEdit: boolean }) {
  const [query, setQuery] = useState({ search: '', status: '', page: 1 });
  const { data, error } = useLoad(
    () => api.get<Page>(`/subscribers${qs({ ...query, per_page: 25 })}`),
    [query.search, query.status, query.page],
  );
  const [adding, setAdding] = useState(false);

  const search = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setQuery({ search: String(form.get('search') ?? ''), status: String(form.get('status') ?? ''), page: 1 });
  };

  return (
    <section>
      <div className="title-row">
        <h1>Subscribers</h1>
        {canEdit && !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add subscriber
          </button>
        )}
      </div>
      {adding && <AddSubscriber onClose={() => setAdding(false)} />}
      <form className="toolbar" role="search" onSubmit={search}>
        <label>
          <span className="visually-hidden">Search</span>
          <input name="search" type="search" placeholder="Search email or name" defaultValue={query.search} />
        </label>
        <label>
          <span className="visually-hidden">Status</span>
          <select name="status" defaultValue={query.status}>
            <option value="">All statuses</option>
            <option value="active">Active</option>
            <option value="unsubscribed">Unsubscribed</option>
            <option value="bounced">Bounced</option>
            <option value="complained">Complained</option>
          </select>
        </label>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : data.subscribers.length === 0 ? (
        <p className="empty">No subscribers match.</p>
      ) : (
        <>
          <p className="muted">{data.pagination.total_count.toLocaleString()} subscribers</p>
          <div className="table-wrap">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Source</th>
                  <th scope="col">Subscribed</th>
                </tr>
              </thead>
              <tbody>
                {data.subscribers.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link href={`/app/subscribers/${s.id}`}>{s.email}</Link>
                    </td>
                    <td>{[s.first_name, s.last_name].filter(Boolean).join(' ') || '—'}</td>
                    <td>
                      <Badge tone={STATUS_TONE[s.status]}>{s.status}</Badge>
                    </td>
                    <td>{s.source}</td>
                    <td>{formatDate(s.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={data.pagination.current_page}
            lastPage={data.pagination.total_pages}
            onPage={(page) => setQuery((q) => ({ ...q, page }))}
          />
        </>
      )}
    </section>
  );
}

function AddSubscriber({ onClose }: { onClose: () => void }) {
  const [error, setError] = useState<unknown>();
  const fields = error instanceof ApiError ? error.fields : {};
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    try {
      const sub = await api.post<Subscriber>('/subscribers', {
        email: form.get('email'),
        first_name: form.get('first_name') || undefined,
        last_name: form.get('last_name') || undefined,
      });
      navigate(`/app/subscribers/${sub.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="add-sub-title">
      <h2 id="add-sub-title">Add a subscriber</h2>
      <Alert error={error} />
      <div className="row">
        <Field label="Email" error={fields.email}>
          {(id, d) => <input id={id} name="email" type="email" required autoFocus aria-describedby={d} />}
        </Field>
        <Field label="First name" error={fields.first_name}>
          {(id) => <input id={id} name="first_name" />}
        </Field>
        <Field label="Last name" error={fields.last_name}>
          {(id) => <input id={id} name="last_name" />}
        </Field>
      </div>
      <div className="buttons">
        <button type="submit">Add</button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
