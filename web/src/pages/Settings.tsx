// Settings: the account's sender defaults, tracking, email verification and time zone (accounts.update),
// and the team (Team.tsx: members and roles). Only owners and admins can change them.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, type Me } from '../api.ts';
import { Alert, Field, Loading, plural } from '../ui.tsx';
import { Team } from './Team.tsx';
import { CustomFields } from './settings/CustomFields.tsx';
import { Warmup } from './settings/Warmup.tsx';

interface AccountSettings {
  id: string;
  name: string;
  subscriber_limit: number;
  default_from_name: string | null;
  default_from_email: string | null;
  default_reply_to: string | null;
  tracking_enabled: boolean;
  verify_emails: boolean;
  timezone: string;
}

const TIMEZONES = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.(
  'timeZone',
) ?? ['UTC'];

export function Settings({ me, canManage, onSaved }: { me: Me; canManage: boolean; onSaved: () => void }) {
  const { data, error } = useQuery({ queryKey: ['settings'], queryFn: () => api.get<AccountSettings>('/settings') });
  return (
    <section>
      <h1>Settings</h1>
      {!canManage && <Alert kind="warning">Your role ({me.role}) can see the settings but not change them.</Alert>}
      <Alert error={error} />
      {!data ? !error && <Loading /> : <AccountForm initial={data} disabled={!canManage} onSaved={onSaved} />}
      <CustomFields canEdit={me.permissions.includes('edit')} />
      <Warmup canEdit={me.permissions.includes('edit')} />
      <Team canManage={canManage} myId={me.user.id} myRole={me.role} />
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
      await api.patch('/settings', {
        name: String(f.get('name') ?? ''),
        default_from_name: text('default_from_name'),
        default_from_email: text('default_from_email'),
        default_reply_to: text('default_reply_to'),
        tracking_enabled: f.get('tracking_enabled') === 'on',
        verify_emails: f.get('verify_emails') === 'on',
        timezone: String(f.get('timezone') ?? 'UTC'),
      });
      setSaved(true);
      // campaign editors fill in the sender defaults and the time zone from here
      await client.invalidateQueries({ queryKey: ['settings'] });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  const zones = TIMEZONES.includes(initial.timezone) ? TIMEZONES : [initial.timezone, ...TIMEZONES];
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
        <Field label="Time zone" error={fields.timezone}>
          {(id, d) => (
            <select id={id} name="timezone" defaultValue={initial.timezone} aria-describedby={d}>
              {zones.map((z) => (
                <option key={z}>{z}</option>
              ))}
            </select>
          )}
        </Field>
        <label className="check">
          <input type="checkbox" name="tracking_enabled" defaultChecked={initial.tracking_enabled} /> Track opens and
          clicks
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
      await api.put('/session/password', {
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
