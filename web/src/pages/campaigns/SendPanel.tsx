// Sending a draft: a test to 1–5 addresses, then "send now" or "schedule" (a date and time in the
// account's time zone, its UTC offset shown), with open and click tracking switched per campaign. Both
// go through a confirmation that names how many people will receive the campaign and lists the checks
// before a send; a failed blocking check keeps the confirm button off.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import {
  campaignKeys,
  getChecks,
  scheduleCampaign,
  sendTest,
  updateCampaign,
  type SendChecks,
} from '../../api/campaigns.ts';
import { localInput, offsetText, zonedIso } from '../../lib/zone.ts';
import { Alert, Badge, Field, fieldError, Loading } from '../../ui.tsx';
import { useAudienceCount } from './AudiencePicker.tsx';
import { campaignKey, type Campaign } from './model.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function TestSend({ campaign, beforeSend }: { campaign: Campaign; beforeSend: () => Promise<boolean> }) {
  const [emails, setEmails] = useState('');
  const [problem, setProblem] = useState<string>();
  const send = useMutation({
    mutationFn: (list: string[]) => sendTest(campaign.id, list),
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const list = emails
      .split(/[\s,;]+/)
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = list.find((x) => !EMAIL.test(x));
    const p =
      list.length === 0
        ? 'Enter at least one address.'
        : list.length > 5
          ? 'A test goes to at most 5 addresses.'
          : bad
            ? `“${bad}” is not an email address.`
            : undefined;
    setProblem(p);
    if (p || !(await beforeSend())) return;
    send.mutate(list);
  };
  const error = problem ? [problem] : fieldError(send.error, 'emails');
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="test-title">
      <h2 id="test-title">Send a test</h2>
      {send.error && !error && <Alert error={send.error} />}
      <Field label="Test addresses" error={error} hint="Up to 5, separated by commas. The draft is saved first.">
        {(id, d, invalid) => (
          <input
            id={id}
            value={emails}
            onChange={(e) => {
              setEmails(e.target.value);
              setProblem(undefined);
              send.reset();
            }}
            aria-describedby={d}
            aria-invalid={invalid}
            placeholder="you@example.com"
          />
        )}
      </Field>
      <div className="buttons">
        <button type="submit" className="secondary" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send test'}
        </button>
        <span role="status">
          {send.data && `Test sent to ${send.data.sent} ${send.data.sent === 1 ? 'address' : 'addresses'}.`}
        </span>
      </div>
    </form>
  );
}

export function SendOrSchedule({
  campaign,
  timezone,
  beforeSend,
}: {
  campaign: Campaign;
  timezone: string;
  beforeSend: () => Promise<boolean>;
}) {
  const client = useQueryClient();
  const [mode, setMode] = useState<'instant' | 'scheduled'>('instant');
  const [when, setWhen] = useState(() => localInput(new Date(Date.now() + 3_600_000), timezone));
  const [whenProblem, setWhenProblem] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const count = useAudienceCount(campaign.group_ids, campaign.segment_ids);
  const checks = useQuery({
    queryKey: campaignKeys.checks(campaign.id),
    queryFn: () => getChecks(campaign.id),
    enabled: confirming,
    staleTime: 0,
  });
  const tracking = useMutation({
    mutationFn: (change: { track_opens?: boolean; track_clicks?: boolean }) => updateCampaign(campaign.id, change),
    onSuccess: (c) => client.setQueryData(campaignKey(c.id), c),
  });
  const zoned = zonedIso(when, timezone);
  const schedule = useMutation({
    mutationFn: () =>
      scheduleCampaign(campaign.id, {
        delivery: mode,
        ...(mode === 'scheduled' && { scheduled_at: zoned!.iso }),
      }),
    onSuccess: async (c) => {
      client.setQueryData(campaignKey(c.id), c);
      await client.invalidateQueries({ queryKey: campaignKeys.all });
      setConfirming(false);
    },
  });
  const ask = async (e: FormEvent) => {
    e.preventDefault();
    schedule.reset();
    if (mode === 'scheduled') {
      const p = !zoned
        ? 'Choose a date and a time.'
        : new Date(zoned.iso).getTime() <= Date.now()
          ? 'Choose a time in the future.'
          : undefined;
      setWhenProblem(p);
      if (p) return;
    }
    if (!(await beforeSend())) return;
    await client.invalidateQueries({ queryKey: campaignKeys.checks(campaign.id) });
    setConfirming(true);
    setTimeout(() => confirmButton.current?.focus(), 0);
  };
  const people = count.data?.count;
  const whom =
    people === undefined
      ? 'everyone in the audience'
      : `${people.toLocaleString()} ${people === 1 ? 'person' : 'people'}`;
  const whenError = whenProblem ? [whenProblem] : fieldError(schedule.error, 'scheduled_at');
  return (
    <form className="card" onSubmit={ask} noValidate aria-labelledby="send-title">
      <h2 id="send-title">Send</h2>
      {schedule.error && !whenError && <Alert error={schedule.error} />}
      <fieldset>
        <legend>When</legend>
        <label className="check">
          <input type="radio" name="delivery" checked={mode === 'instant'} onChange={() => setMode('instant')} /> Now
        </label>
        <label className="check">
          <input type="radio" name="delivery" checked={mode === 'scheduled'} onChange={() => setMode('scheduled')} /> At
          a date and time
        </label>
      </fieldset>
      <fieldset>
        <legend>Tracking</legend>
        {tracking.error && <Alert error={tracking.error} />}
        <label className="check">
          <input
            type="checkbox"
            checked={campaign.track_opens}
            disabled={tracking.isPending}
            onChange={(e) => tracking.mutate({ track_opens: e.target.checked })}
          />{' '}
          Count opens
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={campaign.track_clicks}
            disabled={tracking.isPending}
            onChange={(e) => tracking.mutate({ track_clicks: e.target.checked })}
          />{' '}
          Count clicks
        </label>
      </fieldset>
      {mode === 'scheduled' && (
        <Field
          label="Send at"
          error={whenError}
          hint={`In ${timezone} (UTC${offsetText(zoned?.offset ?? 0)}), the account's time zone.`}
        >
          {(id, d, invalid) => (
            <input
              id={id}
              type="datetime-local"
              value={when}
              onChange={(e) => {
                setWhen(e.target.value);
                setWhenProblem(undefined);
              }}
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
      )}
      {confirming ? (
        <div className="confirm-box" role="alertdialog" aria-labelledby="confirm-text">
          <p id="confirm-text">
            {mode === 'instant'
              ? `Send “${campaign.subject}” to ${whom} now?`
              : `Schedule “${campaign.subject}” for ${whom} on ${when.replace('T', ' at ')} (UTC${offsetText(zoned!.offset)})?`}{' '}
            This cannot be undone, only cancelled while it is going out.
          </p>
          {checks.isPending ? <Loading /> : checks.data && <Checklist checks={checks.data} />}
          {checks.error && <Alert error={checks.error} />}
          <div className="buttons">
            <button
              type="button"
              ref={confirmButton}
              onClick={() => schedule.mutate()}
              disabled={schedule.isPending || !checks.data?.ok}
            >
              {mode === 'instant' ? `Yes, send to ${whom}` : `Yes, schedule for ${whom}`}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Not yet
            </button>
          </div>
        </div>
      ) : (
        <button type="submit">{mode === 'instant' ? 'Send now…' : 'Schedule…'}</button>
      )}
    </form>
  );
}

/** The checks before a send, failures first: what blocks, what only warns, and what passed. */
function Checklist({ checks }: { checks: SendChecks }) {
  const failed = checks.checks.filter((c) => !c.ok);
  const passed = checks.checks.filter((c) => c.ok);
  return (
    <div className="send-checks">
      <p>
        {checks.ok
          ? failed.length === 0
            ? 'Every check before sending passed.'
            : 'Nothing blocks the send, but look at the warnings first.'
          : 'Fix what blocks before this campaign can go out.'}
      </p>
      <ul aria-label="Checks before sending">
        {[...failed, ...passed].map((c) => (
          <li key={c.id}>
            {c.ok ? (
              <Badge tone="good">OK</Badge>
            ) : c.level === 'block' ? (
              <Badge tone="bad">Blocks</Badge>
            ) : (
              <Badge tone="warn">Warning</Badge>
            )}{' '}
            {c.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
