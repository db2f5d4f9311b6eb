// An A/B test's report: per variant what was sent to the test share, human opens (privacy proxies'
// automatic opens left out), clicks, unsubscribes and bounces, the winner marked, and a confidence note
// from a two-proportion test of the leader against the runner-up. While no winner is known, one can be
// picked by hand; it goes to the rest of the audience at once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { campaignKeys, pickAbWinner } from '../../api/campaigns.ts';
import { Alert, Badge } from '../../ui.tsx';
import { campaignKey, type Campaign } from './model.ts';

const pct = (n: number, of: number) => (of === 0 ? '—' : `${((n / of) * 100).toFixed(1)}%`);

export function AbTestReport({ campaign: c, canEdit }: { campaign: Campaign; canEdit: boolean }) {
  const client = useQueryClient();
  const pick = useMutation({
    mutationFn: (variant: number) => pickAbWinner(c.id, variant),
    onSuccess: async (saved) => {
      client.setQueryData(campaignKey(c.id), saved);
      await client.invalidateQueries({ queryKey: campaignKeys.all });
    },
  });
  const t = c.ab_test;
  if (!t) return null;
  const letter = (i: number) => String.fromCharCode(65 + i);
  const by = t.winner_by === 'clicks' ? 'click' : 'human open';
  const canPick = canEdit && t.winner === null && (c.status === 'sending' || c.status === 'paused');
  const conf = t.confidence;
  return (
    <div className="card" aria-label="A/B test results">
      <h2>A/B test</h2>
      <table className="table">
        <thead>
          <tr>
            <th>Variant</th>
            <th>Subject</th>
            <th>Sent</th>
            <th>Human opens</th>
            <th>Clicks</th>
            <th>Unsubscribes</th>
            <th>Bounces</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {t.variants.map((v, i) => (
            <tr key={i}>
              <th scope="row">
                {letter(i)} {t.winner === i && <Badge tone="good">winner</Badge>}
              </th>
              <td>{v.subject ?? c.subject}</td>
              <td>{v.stats.sent}</td>
              <td>
                {v.stats.human_opens} ({pct(v.stats.human_opens, v.stats.sent)})
              </td>
              <td>
                {v.stats.clicks} ({pct(v.stats.clicks, v.stats.sent)})
              </td>
              <td>{v.stats.unsubscribes}</td>
              <td>{v.stats.bounces}</td>
              <td>
                {canPick && (
                  <button
                    type="button"
                    className="secondary small"
                    disabled={pick.isPending}
                    onClick={() => pick.mutate(i)}
                  >
                    Send {letter(i)} to the rest
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Alert error={pick.error} />
      <p className="hint">
        {conf
          ? `${letter(conf.leader)} leads ${letter(conf.runner_up)} on the ${by} rate with ${(conf.confidence * 100).toFixed(0)}% confidence (two-proportion test${conf.confidence < 0.95 ? '; below 95%, the difference may be chance' : ''}).`
          : 'Nothing sent yet.'}{' '}
        {t.winner === null
          ? t.winner_by === 'manual'
            ? 'The rest of the audience waits until you pick a winner.'
            : t.decides_at
              ? `The winner goes to the rest at ${new Date(t.decides_at).toLocaleString()}.`
              : ''
          : `${letter(t.winner)} went to the rest of the audience.`}
      </p>
    </div>
  );
}
