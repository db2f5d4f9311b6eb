// One subscriber (subscribers.getFull): profile, custom fields, groups and notes; members who may edit
// can add a note.
import { useState, type FormEvent } from 'react';
import { api, ApiError, type Subscriber } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, Badge, Field, formatDate, Loading, useLoad } from '../ui.tsx';
import { STATUS_TONE } from './Subscribers.tsx';

interface Full extends Subscriber {
  groups: { id: string; name: string }[];
  notes: { id: string; content: string; created_at: string }[];
}

export function SubscriberView({ id, canEdit }: { id: string; canEdit: boolean }) {
  const { data, error, reload } = useLoad(() => api.get<Full>(`/subscribers/${encodeURIComponent(id)}`), [id]);
  if (error)
    return (
      <section>
        <p>
          <Link href="/app/subscribers">← Subscribers</Link>
        </p>
        <Alert error={error} />
      </section>
    );
  if (!data) return <Loading />;
  const fields = Object.entries(data.custom_fields ?? {});
  return (
    <section>
      <p>
        <Link href="/app/subscribers">← Subscribers</Link>
      </p>
      <h1>{data.email}</h1>
      <div className="card">
        <dl className="facts">
          <dt>Name</dt>
          <dd>{[data.first_name, data.last_name].filter(Boolean).join(' ') || '—'}</dd>
          <dt>Status</dt>
          <dd>
            <Badge tone={STATUS_TONE[data.status]}>{data.status}</Badge>
          </dd>
          <dt>Phone</dt>
          <dd>{data.phone ?? '—'}</dd>
          <dt>Source</dt>
          <dd>{data.source}</dd>
          <dt>Subscribed</dt>
          <dd>{formatDate(data.created_at)}</dd>
          <dt>Groups</dt>
          <dd>{data.groups.length ? data.groups.map((g) => <Badge key={g.id}>{g.name}</Badge>) : '—'}</dd>
          {fields.map(([k, v]) => (
            <FieldFact key={k} name={k} value={v} />
          ))}
        </dl>
      </div>
      <h2>Notes</h2>
      {data.notes.length === 0 ? (
        <p className="empty">No notes yet.</p>
      ) : (
        <ul className="notes">
          {data.notes.map((n) => (
            <li key={n.id}>
              <p>{n.content}</p>
              <time className="muted" dateTime={n.created_at}>
                {formatDate(n.created_at)}
              </time>
            </li>
          ))}
        </ul>
      )}
      {canEdit && <AddNote subscriberId={data.id} onAdded={reload} />}
    </section>
  );
}

function FieldFact({ name, value }: { name: string; value: unknown }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{value === null || value === undefined ? '—' : String(value)}</dd>
    </>
  );
}

function AddNote({ subscriberId, onAdded }: { subscriberId: string; onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const [content, setContent] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.post(`/subscribers/${subscriberId}/notes`, { content });
      setContent('');
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate>
      <Alert error={error} />
      <Field label="Add a note" error={error instanceof ApiError ? error.fields.content : undefined}>
        {(id, d) => (
          <textarea
            id={id}
            rows={3}
            value={content}
            onChange={(e) => setContent(e.target.value)}
            aria-describedby={d}
          />
        )}
      </Field>
      <button type="submit">Save note</button>
    </form>
  );
}
