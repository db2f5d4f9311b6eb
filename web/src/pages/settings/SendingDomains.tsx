// Settings → Sending domains: the domains the account sends from, each proven by a DKIM key of its own
// (/app/api/sending-domains, domain/sending/). Adding a domain shows the DNS records to publish, each with
// a copy button; "Check DNS now" looks them up and shows what each check found; the status is re-checked
// daily by the server as well.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import {
  addSendingDomain,
  deleteSendingDomain,
  listSendingDomains,
  sendingDomainKeys,
  verifySendingDomain,
  type DnsPurpose,
  type DomainCheck,
  type SendingDomain,
} from '../../api/sendingDomains.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Field, fieldError, formatDate, Loading } from '../../ui.tsx';

const KEY = sendingDomainKeys.all;

const PURPOSE: Record<DnsPurpose, [string, string]> = {
  dkim: ['DKIM', 'required: signs the mail'],
  spf: ['SPF', 'add the mechanism to the one SPF record'],
  dmarc: ['DMARC', 'a policy to start from'],
  return_path: ['Return path', 'where bounces come back'],
};

const STATUS_TEXT = { pending: 'Pending', verified: 'Verified', failed: 'Failed' } as const;

export function SendingDomains({ canEdit }: { canEdit: boolean }) {
  const { data, error } = useQuery({ queryKey: KEY, queryFn: listSendingDomains });
  return (
    <section className="card" aria-labelledby="sending-domains-title" id="sending-domains">
      <h2 id="sending-domains-title">Sending domains</h2>
      <p className="muted">
        Mail from a verified domain is signed with its own DKIM key, so mailbox providers can tell it is really yours.
        Add the domain of your From address, publish the records below at your DNS provider, then check.
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : data.sending_domains.length === 0 ? (
        <p>No sending domain yet: mail is signed with the instance’s key, if it has one.</p>
      ) : (
        data.sending_domains.map((d) => <DomainCard key={d.id} domain={d} canEdit={canEdit} />)
      )}
      {canEdit && <NewDomain />}
    </section>
  );
}

function StatusBadge({ status }: { status: SendingDomain['status'] }) {
  const tone = status === 'verified' ? 'good' : status === 'failed' ? 'bad' : 'warn';
  return <span className={`badge badge-${tone}`}>{STATUS_TEXT[status]}</span>;
}

function DomainCard({ domain, canEdit }: { domain: SendingDomain; canEdit: boolean }) {
  const client = useQueryClient();
  const [checks, setChecks] = useState<DomainCheck[]>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const shown = checks ?? domain.checks;
  const check = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const v = await verifySendingDomain(domain.id);
      setChecks(v.checks);
      await client.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="card nested" aria-label={`Sending domain ${domain.domain}`}>
      <h3>
        <code>{domain.domain}</code> <StatusBadge status={domain.status} />
      </h3>
      <p className="muted">
        {domain.checked_at ? `Last checked ${formatDate(domain.checked_at)}` : 'Not checked yet'}
        {domain.verified_at && ` · verified since ${formatDate(domain.verified_at)}`}
      </p>
      <Alert error={error} />
      <table className="table dns-records">
        <caption className="visually-hidden">DNS records for {domain.domain}</caption>
        <thead>
          <tr>
            <th scope="col">Purpose</th>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Check</th>
          </tr>
        </thead>
        <tbody>
          {domain.dns_records.map((r) => {
            const c = shown.find((x) => x.purpose === r.purpose);
            return (
              <tr key={r.purpose}>
                <td>
                  {PURPOSE[r.purpose][0]}
                  <div className="muted small">{PURPOSE[r.purpose][1]}</div>
                </td>
                <td>{r.type}</td>
                <td>
                  <code className="wrap">{r.name}</code> <CopyButton text={r.name} what={`${r.purpose} name`} />
                </td>
                <td>
                  <code className="wrap">{r.value}</code> <CopyButton text={r.value} what={`${r.purpose} value`} />
                </td>
                <td>
                  {!c ? (
                    '—'
                  ) : c.ok ? (
                    <span className="badge badge-good">Found</span>
                  ) : (
                    <>
                      <span className="badge badge-bad">Not right</span>
                      {(c.message || c.found) && (
                        <div className="muted small">
                          {c.message}
                          {c.found && (
                            <>
                              {' '}
                              Found: <code className="wrap">{c.found}</code>
                            </>
                          )}
                        </div>
                      )}
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {canEdit && (
        <div className="row">
          <button type="button" onClick={check} disabled={busy}>
            {busy ? 'Checking…' : 'Check DNS now'}
          </button>
          <ConfirmButton
            name={`Remove the sending domain ${domain.domain}`}
            label="Remove…"
            yes="Remove"
            question={`Remove ${domain.domain}? Its key is deleted; mail from it is no longer signed with it.`}
            onConfirm={async () => {
              await deleteSendingDomain(domain.id);
              await client.invalidateQueries({ queryKey: KEY });
            }}
          />
        </div>
      )}
    </article>
  );
}

function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary small"
      aria-label={`Copy the ${what}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(text);
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function NewDomain() {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const domain = String(new FormData(el).get('domain') ?? '').trim();
    setError(undefined);
    try {
      await addSendingDomain(domain);
      el.reset();
      await client.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Add a sending domain" className="new-field">
      <h3>Add a sending domain</h3>
      <Alert error={error} shown={['domain']} />
      <div className="row">
        <Field
          label="Domain"
          id="sending-domain"
          error={fieldError(error, 'domain')}
          hint="The part after @ of your From address"
        >
          {(id, d, invalid) => (
            <input
              id={id}
              name="domain"
              required
              placeholder="news.example.com"
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
      </div>
      <button type="submit">Add domain</button>
    </form>
  );
}
