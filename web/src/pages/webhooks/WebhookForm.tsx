// A webhook's form, to create one or edit it: its name, URL and the events it subscribes to, one checkbox a
// line from the server's list of event types with what each means.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createWebhook, updateWebhook, webhookEvents, webhookKeys, type Hook } from '../../api/webhooks.ts';
import { Alert, Field, fieldError, Loading } from '../../ui.tsx';

/** Create (no `hook`) or edit. The event lines are the server's: one per event type, with what it means. */
export function WebhookForm({
  hook,
  onSaved,
  onCancel,
}: {
  hook?: Hook;
  onSaved: (h: Hook & { secret?: string }) => void;
  onCancel: () => void;
}) {
  const catalog = useQuery({
    queryKey: webhookKeys.events,
    queryFn: webhookEvents,
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
      onSaved(hook ? await updateWebhook(hook.id, body) : await createWebhook(body));
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
