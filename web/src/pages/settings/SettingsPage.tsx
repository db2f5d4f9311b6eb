// Settings: the account's sender defaults, postal address, tracking, email verification and time zone
// (accounts.update),
// and the team (Team.tsx: members and roles). Only owners and admins can change them.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import { changePassword, type Me } from '../../api/session.ts';
import { getSettings, saveSettings, settingsKeys, type AccountSettings } from '../../api/settings.ts';
import { Alert, Field, Loading, plural } from '../../ui.tsx';
import { Team } from './Team.tsx';
import { CustomFields } from './CustomFields.tsx';
import { Warmup } from './Warmup.tsx';
import { Bounces } from './Bounces.tsx';
import { SendingDomains } from './SendingDomains.tsx';
import { Relays } from './Relays.tsx';
import { BlockingChecks } from './BlockingChecks.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { TimeZoneInput } from '../../lib/TimeZoneInput.tsx';

export function SettingsPage({ me, canManage, onSaved }: { me: Me; canManage: boolean; onSaved: () => void }) {
  const { data, error } = useQuery({ queryKey: settingsKeys.settings, queryFn: getSettings });
  return (
    <section>
      <PageHeader title="Settings" />
      {!canManage && <Alert kind="warning">Your role ({me.role}) can see the settings but not change them.</Alert>}
      <Alert error={error} />
      {!data ? !error && <Loading /> : <AccountForm initial={data} disabled={!canManage} onSaved={onSaved} />}
      {data && <BlockingChecks initial={data} disabled={!canManage} />}
      <CustomFields canEdit={me.permissions.includes('edit')} />
      <SendingDomains canEdit={me.permissions.includes('edit')} />
      <Relays canEdit={me.permissions.includes('edit')} />
      <Warmup canEdit={me.permissions.includes('edit')} />
      <Bounces canManage={canManage} />
      <Team canManage={canManage} myId={me.user.id} myRole={me.role} signIn={me.sign_in} />
      {me.sign_in === 'password' && <PasswordForm />}
    </section>
  );
}

function AccountForm({
  initial,
  disabled,
  onSaved,
}: {
  initial: AccountSettings;
  disabled: boolean;
  onSaved: () => void;
}) {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => (String(f.get(k) ?? '').trim() === '' ? null : String(f.get(k)).trim());
    setError(undefined);
    setSaved(false);
    try {
      await saveSettings({
        name: String(f.get('name') ?? ''),
        default_from_name: text('default_from_name'),
        default_from_email: text('default_from_email'),
        default_reply_to: text('default_reply_to'),
        postal_address: text('postal_address'),
        tracking_enabled: f.get('tracking_enabled') === 'on',
        verify_emails: f.get('verify_emails') === 'on',
        timezone: String(f.get('timezone') ?? '').trim() || 'UTC',
      });
      setSaved(true);
      // campaign editors fill in the sender defaults and the time zone from here
      await client.invalidateQueries({ queryKey: settingsKeys.settings });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <Alert error={error} />
      {saved && <Alert kind="success">Settings saved.</Alert>}
      <fieldset disabled={disabled}>
        <Field label="Account name" error={fields.name}>
          {(id, d) => <input id={id} name="name" defaultValue={initial.name} required aria-describedby={d} />}
        </Field>
        <div className="row">
          <Field label="Default sender name" error={fields.default_from_name}>
            {(id, d) => (
              <input
                id={id}
                name="default_from_name"
                defaultValue={initial.default_from_name ?? ''}
                aria-describedby={d}
              />
            )}
          </Field>
          <Field label="Default sender email" error={fields.default_from_email}>
            {(id, d) => (
              <input
                id={id}
                name="default_from_email"
                type="email"
                defaultValue={initial.default_from_email ?? ''}
                aria-describedby={d}
              />
            )}
          </Field>
        </div>
        <Field label="Reply-to address" error={fields.default_reply_to}>
          {(id, d) => (
            <input
              id={id}
              name="default_reply_to"
              type="email"
              defaultValue={initial.default_reply_to ?? ''}
              aria-describedby={d}
            />
          )}
        </Field>
        <Field
          label="Postal address"
          error={fields.postal_address}
          hint="Shown with the account name in the footer of every email, and by {{ account.postal_address }}. The law asks commercial email to carry one (CAN-SPAM); campaigns are not sent without it where the checks before sending block."
        >
          {(id, d) => (
            <textarea
              id={id}
              name="postal_address"
              rows={3}
              defaultValue={initial.postal_address ?? ''}
              placeholder={'Acme Ltd\n1 Main Street\nSpringfield 12345'}
              aria-describedby={d}
            />
          )}
        </Field>
        <Field label="Time zone" error={fields.timezone}>
          {(id, d) => <TimeZoneInput id={id} name="timezone" defaultValue={initial.timezone} describedBy={d} />}
        </Field>
        <label className="check">
          <input type="checkbox" name="tracking_enabled" defaultChecked={initial.tracking_enabled} /> Track opens and
          clicks in new campaigns
        </label>
        <label className="check">
          <input type="checkbox" name="verify_emails" defaultChecked={initial.verify_emails} /> Verify addresses when
          importing
        </label>
        <p className="muted">Plan limit: {plural(initial.subscriber_limit, 'subscriber')} (set by the operator).</p>
        {!disabled && <button type="submit">Save settings</button>}
      </fieldset>
    </form>
  );
}

function PasswordForm() {
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    setError(undefined);
    setDone(false);
    try {
      await changePassword({
        current_password: f.get('current_password') || undefined,
        new_password: f.get('new_password'),
      });
      formEl.reset();
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="password-title">
      <h2 id="password-title">Your password</h2>
      <Alert error={error} />
      {done && <Alert kind="success">Password changed.</Alert>}
      <div className="row">
        <Field label="Current password" error={fields.current_password}>
          {(id, d) => (
            <input
              id={id}
              name="current_password"
              type="password"
              autoComplete="current-password"
              aria-describedby={d}
            />
          )}
        </Field>
        <Field label="New password" error={fields.new_password} hint="At least 8 characters.">
          {(id, d) => (
            <input id={id} name="new_password" type="password" autoComplete="new-password" aria-describedby={d} />
          )}
        </Field>
      </div>
      <button type="submit">Change password</button>
    </form>
  );
}
