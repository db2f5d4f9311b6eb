// "Retry failed (N)": puts recipients whose failure was temporary (refused until the attempts ran out, no
// server, no message) back in the queue, after a confirmation that names how many. Interrupted recipients
// only when the box is ticked: the mail server may have taken their message already.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { campaignKeys, getRetryable, retryFailed } from '../../api/campaigns.ts';
import { Alert } from '../../ui.tsx';

const recipients = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'recipient' : 'recipients'}`;

export function RetryFailed({ id }: { id: string }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [withInterrupted, setWithInterrupted] = useState(false);
  const counts = useQuery({
    queryKey: campaignKeys.retry(id),
    queryFn: () => getRetryable(id),
  });
  const retry = useMutation({
    mutationFn: () => retryFailed(id, withInterrupted ? ['failed', 'interrupted'] : ['failed']),
    onSuccess: async () => {
      setAsking(false);
      setWithInterrupted(false);
      await client.invalidateQueries({ queryKey: campaignKeys.all });
    },
  });
  const n = counts.data?.failed ?? 0;
  const interrupted = counts.data?.interrupted ?? 0;
  if (n + interrupted === 0) return null;
  const total = n + (withInterrupted ? interrupted : 0);
  return (
    <>
      <button type="button" className="secondary" onClick={() => setAsking(true)} disabled={retry.isPending}>
        Retry failed ({n.toLocaleString()})
      </button>
      {asking && (
        <div className="card confirm-row" role="alertdialog" aria-labelledby="retry-title">
          <h2 id="retry-title">Send again to {recipients(total)}?</h2>
          <p>
            {recipients(n)} failed with a temporary error and go back in the queue. Recipients who already received it,
            or who bounced, are not sent again.
          </p>
          {interrupted > 0 && (
            <label>
              <input
                type="checkbox"
                checked={withInterrupted}
                onChange={(e) => setWithInterrupted(e.currentTarget.checked)}
              />{' '}
              Also the {recipients(interrupted)} interrupted mid-send (they may have received it already)
            </label>
          )}
          <Alert error={retry.error} />
          <div className="buttons">
            <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending || total === 0}>
              Retry {recipients(total)}
            </button>
            <button type="button" className="secondary" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  );
}
