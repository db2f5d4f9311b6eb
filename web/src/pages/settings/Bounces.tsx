// Settings → Bounces and complaints: how late reports come home (docs/deliverability.md). The return-path
// domain the mail goes out with, the inbound listener and bounce mailbox of this instance and of every
// live one, what came home in the last 30 days and when, and how much mail could not be attributed (the
// operator reads it through the admin API). The account's own bounce mailbox is set here by whoever may
// manage the account: its URL is write-only, shown back as its host and how the last poll went.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import {
  bounceKeys,
  getBounceSetup,
  setAccountMailbox,
  type AccountMailbox,
  type BounceSetup,
} from '../../api/bounces.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Badge, Field, fieldError, formatDate, Loading } from '../../ui.tsx';

const OUTCOMES: [string, string][] = [
  ['bounced', 'Bounced'],
  ['soft_bounced', 'Soft bounces'],
  ['blocked', 'Policy blocks'],
  ['delayed', 'Delay warnings'],
  ['complained', 'Complaints'],
  ['unsubscribed', 'Unsubscribed by mail'],
  ['auto_reply', 'Auto-replies (ignored)'],
  ['ignored', 'Ignored'],
];

function ListenerState({ s }: { s: BounceSetup['listener'] }) {
  if (!s.configured) return <Badge>Off</Badge>;
  if (s.error) return <Badge tone="bad">Not running: {s.error}</Badge>;
  return s.listening ? (
    <Badge tone="good">
      Listening on {s.address}
      {s.tls ? ' (STARTTLS)' : ''}
    </Badge>
  ) : (
    <Badge tone="warn">Not on this instance</Badge>
  );
}

function MailboxState({ s }: { s: BounceSetup['mailbox'] }) {
  if (!s.configured) return <Badge>Off</Badge>;
  if (s.last_error) return <Badge tone="bad">{s.last_error}</Badge>;
  return (
    <Badge tone="good">
      {s.mailbox}, last checked {formatDate(s.last_poll_at, 'not yet')}
    </Badge>
  );
}

function Instances({ list }: { list: BounceSetup['instances'] }) {
  if (list.length === 0) return <span className="muted">No worker instance has reported yet</span>;
  return (
    <ul className="plain-list">
      {list.map((i, n) => (
        <li key={n}>
          <code>{i.host}</code>:{' '}
          {!i.listener ? (
            <Badge>No listener</Badge>
          ) : i.listener.error ? (
            <Badge tone="bad">Listener not running: {i.listener.error}</Badge>
          ) : i.listener.listening ? (
            <Badge tone="good">
              Listening on {i.listener.address}
              {i.listener.tls ? ' (STARTTLS)' : ''}
            </Badge>
          ) : (
            <Badge tone="warn">Listener stopped</Badge>
          )}{' '}
          {i.mailbox &&
            (i.mailbox.last_error ? (
              <Badge tone="bad">Mailbox: {i.mailbox.last_error}</Badge>
            ) : (
              <Badge tone="good">Mailbox checked {formatDate(i.mailbox.last_poll_at, 'not yet')}</Badge>
            ))}
        </li>
      ))}
    </ul>
  );
}

function OwnMailbox({ m, canManage }: { m: AccountMailbox; canManage: boolean }) {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const save = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const url = String(new FormData(el).get('bounce_imap_url') ?? '').trim();
    setError(undefined);
    setBusy(true);
    try {
      await setAccountMailbox(url);
      el.reset();
      await client.invalidateQueries({ queryKey: bounceKeys.setup });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {!m.configured ? (
        <Badge>None</Badge>
      ) : m.last_error ? (
        <Badge tone="bad">
          {m.host}: {m.last_error}
        </Badge>
      ) : (
        <Badge tone="good">
          {m.host}, last checked {formatDate(m.last_polled_at, 'not yet')}
        </Badge>
      )}
      {canManage && (
        <form onSubmit={save} noValidate aria-label="Own bounce mailbox" className="new-field">
          <Alert error={error} shown={['bounce_imap_url']} />
          <Field
            label={m.configured ? 'Replace the mailbox' : 'Mailbox URL'}
            id="bounce-imap-url"
            error={fieldError(error, 'bounce_imap_url')}
            hint="For a relay that can only send bounces to a mailbox: imaps://user:password@host/INBOX. Kept encrypted, never shown again."
          >
            {(id, d, invalid) => (
              <input
                id={id}
                name="bounce_imap_url"
                type="password"
                autoComplete="off"
                spellCheck={false}
                placeholder="imaps://user:password@imap.example.com/INBOX"
                aria-describedby={d}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <div className="row">
            <button type="submit" disabled={busy}>
              {busy ? 'Checking…' : 'Save mailbox'}
            </button>
            {m.configured && (
              <ConfirmButton
                name="Remove the account's own bounce mailbox"
                label="Remove…"
                yes="Remove"
                question={`Stop reading bounces from ${m.host}? Its URL and password are deleted.`}
                onConfirm={async () => {
                  await setAccountMailbox(null);
                  await client.invalidateQueries({ queryKey: bounceKeys.setup });
                }}
              />
            )}
          </div>
        </form>
      )}
    </>
  );
}

export function Bounces({ canManage = false }: { canManage?: boolean }) {
  const { data, error } = useQuery({ queryKey: bounceKeys.setup, queryFn: getBounceSetup, refetchInterval: 30_000 });
  return (
    <section className="card" aria-labelledby="bounces-title" id="bounces">
      <h2 id="bounces-title">Bounces and complaints</h2>
      <p className="muted">
        Each message goes out with a return path of its own. Relays that accept a message and bounce it later, and
        mailbox providers that report a complaint, mail the report there; it is tied to the exact recipient and
        campaign.
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <dl className="facts">
          <dt>Return-path domain</dt>
          <dd>
            {data.return_path_domain ? (
              <code>{data.return_path_domain}</code>
            ) : (
              <Badge tone="warn">None: mail goes out with the From address as return path</Badge>
            )}
          </dd>
          <dt>Inbound listener (this instance)</dt>
          <dd>
            <ListenerState s={data.listener} />
          </dd>
          <dt>Bounce mailbox (this instance)</dt>
          <dd>
            <MailboxState s={data.mailbox} />
          </dd>
          <dt>Every live instance</dt>
          <dd>
            <Instances list={data.instances} />
          </dd>
          <dt>This account’s own bounce mailbox</dt>
          <dd>
            <OwnMailbox m={data.account_mailbox} canManage={canManage} />
          </dd>
          <dt>Last message received</dt>
          <dd>{formatDate(data.last_received_at, 'none yet')}</dd>
          <dt>Last 30 days</dt>
          <dd>
            <span className="small-text">
              {OUTCOMES.filter(([k]) => data.last_30_days[k])
                .map(([k, label]) => `${label}: ${data.last_30_days[k]}`)
                .join(' · ')}
            </span>
            {Object.keys(data.last_30_days).length === 0 && <span className="muted">nothing</span>}
          </dd>
          <dt>Unmatched mail (whole instance)</dt>
          <dd>
            {data.unmatched === 0 ? (
              '0'
            ) : (
              <Badge tone="warn">{data.unmatched} kept 14 days for the operator to read</Badge>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}
