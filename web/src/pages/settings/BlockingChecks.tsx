// Settings → Checks before sending: which of the checks a campaign passes before it goes out refuse the
// send for this account. The instance's own (SEND_CHECKS) are shown ticked and fixed: an account can add
// to them, never take one away. Saved through the account's settings (blocking_checks).
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { saveSettings, settingsKeys, type AccountSettings } from '../../api/settings.ts';
import { Alert } from '../../ui.tsx';

/** Every check, in the order the server lists them, in words. */
const CHECKS: [string, string][] = [
  ['from_domain', 'The From address is on a verified, DKIM-aligned sending domain'],
  ['dmarc', 'The From domain publishes a DMARC record'],
  ['postal_address', 'The account has a postal address and the email shows it'],
  ['unsubscribe_link', 'The email links to its unsubscribe page'],
  ['public_url', 'Unsubscribe and tracking links use an https address recipients can reach'],
  ['private_links', 'No link or image points at a private address'],
  ['html_size', 'The HTML is under Gmail’s 102 KB clipping limit'],
  ['subject', 'The email has a subject'],
  ['preview_text', 'The email has preview text'],
  ['text_part', 'The text part says what the HTML says'],
];

export function BlockingChecks({ initial, disabled }: { initial: AccountSettings; disabled: boolean }) {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const floor = new Set(initial.instance_blocking_checks);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const chosen = new FormData(e.currentTarget).getAll('blocking_checks').map(String);
    setError(undefined);
    setSaved(false);
    try {
      // the instance's checks are disabled boxes (not in the form): the account's own choice of them is kept
      const kept = initial.blocking_checks.filter((id) => floor.has(id));
      const account = await saveSettings({ blocking_checks: [...kept, ...chosen] });
      client.setQueryData(settingsKeys.settings, account);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="blocking-checks-title">
      <h2 id="blocking-checks-title">Checks before sending</h2>
      <p className="muted">
        Every campaign is checked before it goes out. A ticked check refuses the send when it fails; the others only
        warn. {floor.size > 0 ? 'Checks this instance always enforces are ticked and cannot be turned off.' : ''}
      </p>
      <Alert error={error} />
      {saved && <Alert kind="success">Checks saved.</Alert>}
      <fieldset disabled={disabled}>
        <legend className="visually-hidden">Checks that refuse a send</legend>
        {CHECKS.map(([id, label]) => (
          <label className="check" key={id}>
            <input
              type="checkbox"
              name="blocking_checks"
              value={id}
              defaultChecked={floor.has(id) || initial.blocking_checks.includes(id)}
              disabled={floor.has(id)}
            />{' '}
            {label}
            {floor.has(id) && <span className="muted small"> — always, on this instance</span>}
          </label>
        ))}
        {!disabled && <button type="submit">Save checks</button>}
      </fieldset>
    </form>
  );
}
