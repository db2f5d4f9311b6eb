// A send in flight: queued, sending, sent, failed and interrupted, the recent rate, and the providers that
// asked to slow down ("deferred by"). It asks again every
// second and a half while the campaign is sending; when the send ends, the campaign and report refresh.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { campaignKeys, getProgress } from '../../api/campaigns.ts';
import { Alert, Badge, formatDate } from '../../ui.tsx';
import { campaignKey, STATUS_TONE } from './model.ts';

export function Progress({ id, live }: { id: string; live: boolean }) {
  const client = useQueryClient();
  const progress = useQuery({
    queryKey: campaignKeys.progress(id),
    queryFn: () => getProgress(id),
    refetchInterval: (q) => (q.state.data ? (q.state.data.status === 'sending' ? 1500 : false) : live ? 1500 : false),
  });
  const status = progress.data?.status;
  useEffect(() => {
    if (live && status && status !== 'sending') {
      void client.invalidateQueries({ queryKey: campaignKey(id) });
      void client.invalidateQueries({ queryKey: campaignKeys.report(id) });
      void client.invalidateQueries({ queryKey: campaignKeys.recipientsOf(id) });
      void client.invalidateQueries({ queryKey: campaignKeys.lists });
    }
  }, [live, status, id, client]);
  if (progress.error) return <Alert error={progress.error} />;
  const p = progress.data;
  if (!p) return null;
  const done = p.sent + p.failed + p.interrupted;
  return (
    <section className="card" aria-labelledby="progress-title">
      <h2 id="progress-title">Delivery</h2>
      <div aria-live="polite" aria-atomic="true" className="progress-live">
        <p>
          <Badge tone={STATUS_TONE[p.status]}>
            {p.status === 'sending' && p.warmup ? 'sending (warm-up)' : p.status}
          </Badge>{' '}
          {p.status === 'sending'
            ? `${done.toLocaleString()} of ${p.total.toLocaleString()} handled · about ${Math.round(p.per_minute).toLocaleString()} a minute`
            : `${p.sent.toLocaleString()} of ${p.total.toLocaleString()} delivered to the mail server`}
        </p>
        {p.status === 'sending' && p.warmup && (
          <p data-warmup>
            {p.warmup.waiting.toLocaleString()} waiting for the next day of {p.warmup.domain}’s warm-up, from{' '}
            {formatDate(p.warmup.resumes_at)}
          </p>
        )}
      </div>
      <progress max={Math.max(1, p.total)} value={done} aria-label="Messages handled" />
      {p.status === 'sending' && p.deferred_by && p.deferred_by.length > 0 && (
        <ul className="deferred-by" aria-label="Deferred providers">
          {p.deferred_by.map((d) => (
            <li key={d.provider}>
              Deferred by <strong>{d.provider}</strong> until {new Date(d.until).toLocaleTimeString()} ·{' '}
              {d.recipients.toLocaleString()} waiting
            </li>
          ))}
        </ul>
      )}
      <dl className="counts">
        {(
          [
            ['Queued', p.queued],
            ['Sending', p.sending],
            ['Sent', p.sent],
            ['Failed', p.failed],
            ['Interrupted', p.interrupted],
          ] as const
        ).map(([label, n]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd data-count={label.toLowerCase()}>{n.toLocaleString()}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
