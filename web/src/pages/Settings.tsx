// Settings: the account's sender defaults, tracking, email verification and time zone (accounts.update),
// and the team (members and roles). Only owners and admins can change them.
import { useState, type FormEvent } from 'react';
import { api, ApiError, type Me, type Role } from '../api.ts';
import { Alert, Field, formatDate, Loading, useLoad } from '../ui.tsx';

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
interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

const TIMEZONES = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.(
  'timeZone',
) ?? ['UTC'];

export function Settings({ me, canManage, onSaved }: { me: Me; canManage: boolean; onSaved: () => void }) {
  const { data, error } = useLoad(() => api.get<AccountSettings>('/settings'), []);
  return (
    <section>
      <h1>Settings</h1>
      {!canManage && <Alert kind="warning">Your role ({me.role}) can see the settings but not change them.</Alert>}
      <Alert error={error} />
      {!data ? !error && <Loading /> : <AccountForm initial={data} disabled={!canManage} onSaved={onSaved} />}
      <Team canManage={canManage} myId={me.user.id} />
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
        <p className="muted">
          Plan limit: {initial.subscriber_limit.toLocaleString()} subscribers (set by the operator).
        </p>
        {!disabled && <button type="submit">Save settings</button>}
      </fieldset>
    </form>
  );
}

function Team({ canManage, myId }: { canManage: boolean; myId: string }) {
  const { data, error, reload } = useLoad(() => api.get<Member[]>('/members'), []);
  const [addError, setAddError] = useState<unknown>();
  const fields = addError instanceof ApiError ? addError.fields : {};
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    setAddError(undefined);
    try {
      await api.post('/members', {
        email: f.get('email'),
        name: f.get('name') || undefined,
        role: f.get('role'),
        password: f.get('password') || undefined,
      });
      formEl.reset();
      reload();
    } catch (err) {
      setAddError(err);
    }
  };
  const remove = async (id: string) => {
    try {
      await api.del(`/members/${id}`);
      reload();
    } catch (err) {
      setAddError(err);
    }
  };
  return (
    <div className="card">
      <h2>Team</h2>
      <Alert error={error} />
      {data && (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.map((m) => (
              <tr key={m.id}>
                <td>{m.name ? `${m.name} <${m.email}>` : m.email}</td>
                <td>{m.role}</td>
                <td>{formatDate(m.joined_at)}</td>
                {canManage && (
                  <td className="actions">
                    {m.id !== myId && (
                      <button
                        type="button"
                        className="danger-outline small"
                        onClick={() => remove(m.id)}
                        aria-label={`Remove ${m.email}`}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canManage && (
        <form onSubmit={add} noValidate aria-labelledby="add-member-title">
          <h3 id="add-member-title">Add a member</h3>
          <Alert error={addError} />
          <div className="row">
            <Field label="Member email" error={fields.email}>
              {(id, d) => <input id={id} name="email" type="email" required aria-describedby={d} />}
            </Field>
            <Field label="Member name" error={fields.name}>
              {(id) => <input id={id} name="name" />}
            </Field>
            <Field label="Role" error={fields.role}>
              {(id) => (
                <select id={id} name="role" defaultValue="editor">
                  <option value="admin">Admin — everything, including keys and settings</option>
                  <option value="editor">Editor — subscribers, imports, notes</option>
                  <option value="viewer">Viewer — read only</option>
                </select>
              )}
            </Field>
          </div>
          <Field
            label="Initial password"
            error={fields.password}
            hint="For email + password sign-in; leave empty when members sign in through your identity provider."
          >
            {(id, d) => (
              <input id={id} name="password" type="password" autoComplete="new-password" aria-describedby={d} />
            )}
          </Field>
          <button type="submit">Add member</button>
        </form>
      )}
    </div>
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
