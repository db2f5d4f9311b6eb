// Settings → Relays: the account's own SMTP servers (/app/api/relays, domain/sending/relays.ts). Mail whose
// From domain a relay lists leaves through it; the rest through the instance. Add one (its URL, with the
// password, is sent once and never shown again), send a test through it, remove it with an in-page confirm.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import {
  addRelay,
  deleteRelay,
  listRelays,
  relayKeys,
  testRelay,
  type Relay,
  type RelayTest,
} from '../../api/relays.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Field, fieldError, Loading } from '../../ui.tsx';

const KEY = relayKeys.all;

export function Relays({ canEdit }: { canEdit: boolean }) {
  const { data, error } = useQuery({ queryKey: KEY, queryFn: listRelays });
  return (
    <section className="card" aria-labelledby="relays-title" id="relays">
      <h2 id="relays-title">Relays</h2>
      <p className="muted">
        Send the mail of some of your From domains through your own SMTP server (your provider’s SMTP relay, for
        example). Mail from other domains keeps going through this instance.
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : data.relays.length === 0 ? (
        <p>No relay: all mail leaves through this instance.</p>
      ) : (
        data.relays.map((r) => <RelayCard key={r.id} relay={r} canEdit={canEdit} />)
      )}
      {canEdit && <NewRelayForm />}
    </section>
  );
}

function RelayCard({ relay, canEdit }: { relay: Relay; canEdit: boolean }) {
  const client = useQueryClient();
  const [to, setTo] = useState('');
  const [result, setResult] = useState<RelayTest>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const send = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await testRelay(relay.id, to.trim()));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="card nested" aria-label={`Relay ${relay.name}`}>
      <h3>{relay.name}</h3>
      <p>
        <code className="wrap">
          {relay.secure ? 'smtps' : 'smtp'}://{relay.host}:{relay.port}
        </code>{' '}
        <span className="muted small">
          {relay.secure ? 'implicit TLS' : 'STARTTLS when offered'} ·{' '}
          {relay.has_credentials ? 'with credentials (stored encrypted)' : 'no credentials'}
        </span>
      </p>
      <p>
        Carries mail from:{' '}
        {relay.from_domains.map((d, i) => (
          <span key={d}>
            {i > 0 && ', '}
            <code>{d}</code>
          </span>
        ))}
      </p>
      {canEdit && (
        <>
          <form onSubmit={send} noValidate aria-label={`Send a test through ${relay.name}`} className="row">
            <Field label="Send a test to" id={`relay-test-${relay.id}`} error={fieldError(error, 'to')}>
              {(id, d, invalid) => (
                <input
                  id={id}
                  type="email"
                  value={to}
                  onChange={(e) => setTo(e.target.value)}
                  placeholder="you@example.com"
                  aria-describedby={d}
                  aria-invalid={invalid}
                />
              )}
            </Field>
            <button type="submit" disabled={busy || !to.trim()}>
              {busy ? 'Sending…' : 'Send a test'}
            </button>
          </form>
          <Alert error={error} shown={['to']} />
          {result && (
            <p role="status" className={result.ok ? 'alert alert-success' : 'alert alert-error'}>
              {result.ok ? 'The relay accepted the test: ' : 'The relay refused the test: '}
              <code className="wrap">{result.message}</code>
            </p>
          )}
          <div className="row">
            <ConfirmButton
              name={`Remove the relay ${relay.name}`}
              label="Remove…"
              yes="Remove"
              question={`Remove ${relay.name}? Mail from its domains goes through this instance again.`}
              onConfirm={async () => {
                await deleteRelay(relay.id);
                await client.invalidateQueries({ queryKey: KEY });
              }}
            />
          </div>
        </>
      )}
    </article>
  );
}

function NewRelayForm() {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const form = new FormData(el);
    setError(undefined);
    try {
      await addRelay({
        name: String(form.get('name') ?? '').trim(),
        url: String(form.get('url') ?? '').trim(),
        from_domains: String(form.get('from_domains') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean),
      });
      el.reset();
      await client.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Add a relay" className="new-field">
      <h3>Add a relay</h3>
      <Alert error={error} shown={['name', 'url', 'from_domains']} />
      <div className="row">
        <Field label="Name" id="relay-name" error={fieldError(error, 'name')}>
          {(id, d, invalid) => (
            <input id={id} name="name" required placeholder="Our SES" aria-describedby={d} aria-invalid={invalid} />
          )}
        </Field>
        <Field
          label="SMTP URL"
          id="relay-url"
          error={fieldError(error, 'url')}
          hint="smtp://user:password@host:587 or smtps://…:465 — stored encrypted, never shown again"
        >
          {(id, d, invalid) => (
            <input
              id={id}
              name="url"
              type="password"
              autoComplete="off"
              required
              placeholder="smtps://user:password@smtp.example.net:465"
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
        <Field
          label="From domains"
          id="relay-domains"
          error={fieldError(error, 'from_domains')}
          hint="The domains after @ of the From addresses it carries, separated by commas"
        >
          {(id, d, invalid) => (
            <input
              id={id}
              name="from_domains"
              required
              placeholder="news.example.com"
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
      </div>
      <button type="submit">Add relay</button>
    </form>
  );
}
