// One captured message: its HTML in a sandboxed frame served with a no-network CSP (it can run nothing and
// track nothing), its text, or its headers.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { getMessage, messageHtmlUrl, outboxKeys } from '../../api/outbox.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { Alert, formatDate, Loading } from '../../ui.tsx';

export function MessagePage({ id }: { id: string }) {
  const { data, error } = useQuery({
    queryKey: outboxKeys.one(id),
    queryFn: () => getMessage(id),
  });
  const [view, setView] = useState<'html' | 'text' | 'headers'>('html');
  return (
    <section>
      <p>
        <Link to="/app/outbox">← Outbox</Link>
      </p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <PageHeader title={data.subject || '(no subject)'} />
          <dl className="facts card">
            <dt>From</dt>
            <dd>{data.from_addr}</dd>
            <dt>To</dt>
            <dd>{data.to_addr}</dd>
            <dt>Captured</dt>
            <dd>{formatDate(data.created_at)}</dd>
            <dt>Message-ID</dt>
            <dd className="mono">{data.message_id}</dd>
          </dl>
          <div className="tabs" role="tablist" aria-label="Message view">
            {(['html', 'text', 'headers'] as const).map((v) => (
              <button
                key={v}
                type="button"
                role="tab"
                aria-selected={view === v}
                className={view === v ? 'tab active' : 'tab'}
                onClick={() => setView(v)}
              >
                {v === 'html' ? 'HTML' : v === 'text' ? 'Plain text' : 'Headers'}
              </button>
            ))}
          </div>
          <div role="tabpanel" className="message-view">
            {view === 'html' ? (
              <iframe title="Message HTML" sandbox="" src={messageHtmlUrl(data.id)} className="message-frame" />
            ) : view === 'text' ? (
              <pre className="message-text">{data.text ?? '(no plain-text part)'}</pre>
            ) : (
              <pre className="message-text">
                {Object.entries(data.headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n')}
              </pre>
            )}
          </div>
        </>
      )}
    </section>
  );
}
