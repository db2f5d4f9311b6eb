// The one confirm-before-delete of the dashboard: a button that asks first, in place. Pressing it shows the
// question with "yes" and Cancel beside where the button was (an alert dialog for screen readers); a
// failure of the action is shown in the question, which stays open so the user can try again or cancel.
// Where there is nothing to lose this time (`ask` false: no run would be cancelled), the button acts at once.
import { useState, type ReactNode } from 'react';
import { Alert } from '../ui.tsx';

export function ConfirmButton({
  label = 'Delete…',
  name,
  question,
  yes = 'Delete',
  onConfirm,
  size = 'small',
  ask = true,
  tone = 'danger',
}: {
  /** the asking button's text */
  label?: ReactNode;
  /** the accessible name of the asking button and of the question ("Delete the warm-up of news.example") */
  name: string;
  question: ReactNode;
  /** the confirming button's text */
  yes?: string;
  /** runs on "yes"; a thrown error is shown and the question stays */
  onConfirm: () => Promise<unknown>;
  size?: 'small' | 'normal';
  /** false: act without asking (a failure still opens the question, with the error) */
  ask?: boolean;
  /** the asking button's look: a destructive action, or a plain one that only sometimes asks */
  tone?: 'danger' | 'secondary';
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const small = size === 'small' ? ' small' : '';
  const confirm = async () => {
    setError(undefined);
    setBusy(true);
    try {
      await onConfirm();
      setAsking(false);
    } catch (err) {
      setError(err);
      setAsking(true);
    } finally {
      setBusy(false);
    }
  };
  if (!asking)
    return (
      <button
        type="button"
        className={`${tone === 'danger' ? 'danger-outline' : 'secondary'}${small}`}
        onClick={() => (ask ? setAsking(true) : void confirm())}
        disabled={busy}
        aria-label={name}
      >
        {label}
      </button>
    );
  return (
    <span className="confirm" role="alertdialog" aria-label={name}>
      <span>{question}</span>
      <Alert error={error} />
      <button type="button" className={`danger${small}`} onClick={confirm} disabled={busy}>
        {yes}
      </button>
      <button type="button" className={`secondary${small}`} onClick={() => (setAsking(false), setError(undefined))}>
        Cancel
      </button>
    </span>
  );
}
