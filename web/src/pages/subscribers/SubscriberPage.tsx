// One subscriber (subscribers.getFull): members who may edit change every field, the groups and the custom
// fields in one save (subscriber/EditSubscriber.tsx) and can delete it after a confirmation; everyone sees
// its facts, its activity from the event log and the notes.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client.ts';
import { groupKeys } from '../../api/groups.ts';
import { addNote, deleteSubscriber, getSubscriber, subscriberKeys } from '../../api/subscribers.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Badge, Field, formatDate, Loading } from '../../ui.tsx';
import { STATUS_TONE } from './SubscribersPage.tsx';
import { Activity } from './Activity.tsx';
import { EditSubscriber } from './EditSubscriber.tsx';
import { useFields, type FullSubscriber } from './model.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';

export function SubscriberPage({ id, canEdit }: { id: string; canEdit: boolean }) {
  const client = useQueryClient();
  const key = subscriberKeys.one(id);
  const { data, error } = useQuery({
    queryKey: key,
    queryFn: () => getSubscriber(id),
  });
  const [saved, setSaved] = useState(false);
  const reload = () => void client.invalidateQueries({ queryKey: key });
  const back = (
    <p>
      <Link to="/app/subscribers">← Subscribers</Link>
    </p>
  );
  if (error)
    return (
      <section>
        {back}
        <Alert error={error} />
      </section>
    );
  if (!data) return <Loading />;
  return (
    <section>
      {back}
      <PageHeader title={data.email} breakTitle>
        {canEdit && <DeleteSubscriber subscriber={data} />}
      </PageHeader>
      {saved && <Alert kind="success">Saved.</Alert>}
      <Facts subscriber={data} full={!canEdit} />
      {canEdit && (
        <EditSubscriber
          key={data.updated_at}
          subscriber={data}
          onSaved={() => setSaved(true)}
          onEdit={() => setSaved(false)}
        />
      )}
      <Activity subscriberId={data.id} />
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

/** What the edit form does not show (status, source, dates); for viewers also the fields it would edit. */
function Facts({ subscriber: s, full }: { subscriber: FullSubscriber; full: boolean }) {
  const fields = useFields();
  return (
    <div className="card">
      <dl className="facts">
        {full && (
          <>
            <dt>Name</dt>
            <dd>{[s.first_name, s.last_name].filter(Boolean).join(' ') || '—'}</dd>
            <dt>Phone</dt>
            <dd>{s.phone ?? '—'}</dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          <Badge tone={STATUS_TONE[s.status]}>{s.status}</Badge>
        </dd>
        <dt>Source</dt>
        <dd>{s.source}</dd>
        <dt>Subscribed</dt>
        <dd>{formatDate(s.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatDate(s.updated_at)}</dd>
        {full && (
          <>
            <dt>Groups</dt>
            <dd>{s.groups.length ? s.groups.map((g) => <Badge key={g.id}>{g.name}</Badge>) : '—'}</dd>
            {fields.data?.map((f) => (
              <FieldFact key={f.id} name={f.name} value={s.custom_fields?.[f.key]} />
            ))}
          </>
        )}
      </dl>
    </div>
  );
}

function FieldFact({ name, value }: { name: string; value: unknown }) {
  const text =
    value === null || value === undefined ? '—' : typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value);
  return (
    <>
      <dt>{name}</dt>
      <dd className="break">{text}</dd>
    </>
  );
}

function DeleteSubscriber({ subscriber }: { subscriber: FullSubscriber }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  return (
    <ConfirmButton
      name={`Delete ${subscriber.email}`}
      question={`Delete ${subscriber.email} with their notes and history? This cannot be undone.`}
      size="normal"
      onConfirm={async () => {
        await deleteSubscriber(subscriber.id);
        client.removeQueries({ queryKey: subscriberKeys.one(subscriber.id) });
        await client.invalidateQueries({ queryKey: subscriberKeys.all });
        await client.invalidateQueries({ queryKey: groupKeys.all });
        navigate('/app/subscribers');
      }}
    />
  );
}

function AddNote({ subscriberId, onAdded }: { subscriberId: string; onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const [content, setContent] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await addNote(subscriberId, content);
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
