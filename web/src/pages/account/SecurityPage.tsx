// /app/account: the signed-in person's own sign-in security. Two-factor sign-in (TOTP): turn it on with
// a QR code (or the secret typed by hand) and a code from the app, see the ten recovery codes once, turn it
// off with the password and a code. Their sessions on every device, with "sign out" for each one and
// "sign out everywhere else".
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useFormAction } from '../../lib/formAction.ts';
import type { Me } from '../../api/session.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  endOtherSessions,
  endSession,
  getTwoFactor,
  listSessions,
  startEnrolment,
  teamKeys,
  type Enrolment,
  type SessionInfo,
} from '../../api/team.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { actionsColumn, DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Badge, Field, fieldError, formatDate, Loading, plural } from '../../ui.tsx';

export function SecurityPage({ me }: { me: Me }) {
  return (
    <section>
      <PageHeader title="Your sign-in" />
      <p className="muted">
        Signed in as <span className="break">{me.user.email}</span>.
      </p>
      {me.sign_in === 'password' ? (
        <TwoFactor />
      ) : (
        <p className="card">Two-factor sign-in is set up at your identity provider.</p>
      )}
      <Sessions />
    </section>
  );
}

function TwoFactor() {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: teamKeys.twoFactor, queryFn: getTwoFactor });
  const [enrolment, setEnrolment] = useState<Enrolment>();
  const [codes, setCodes] = useState<string[]>();
  const [actionError, setActionError] = useState<unknown>();
  const reload = () => client.invalidateQueries({ queryKey: teamKeys.twoFactor });
  const begin = async () => {
    setActionError(undefined);
    try {
      setEnrolment(await startEnrolment());
    } catch (err) {
      setActionError(err);
    }
  };
  const confirm = useFormAction(async (f) => {
    const r = await enableTwoFactor(f.get('code'));
    setEnrolment(undefined);
    setCodes(r.recovery_codes);
    await reload();
  });
  return (
    <div className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      <Alert error={error} />
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(undefined)} />
      ) : !data ? (
        !error && <Loading />
      ) : data.enabled ? (
        <>
          <p>
            <Badge tone="good">On</Badge> Signing in asks for a code from your authenticator app after the password.{' '}
            {plural(data.recovery_codes_left, 'recovery code')} left.
          </p>
          <TurnOff onDone={reload} />
        </>
      ) : enrolment ? (
        <form onSubmit={confirm.submit} noValidate>
          <p>Scan this code with your authenticator app (or type the key by hand), then enter the code it shows.</p>
          <img className="qr" src={enrolment.qr} alt="QR code for your authenticator app" width={192} height={192} />
          <p>
            Key: <code className="secret-text">{enrolment.secret}</code>
          </p>
          <details>
            <summary>Setup link</summary>
            <code className="secret-text">{enrolment.uri}</code>
          </details>
          <Alert error={confirm.error} shown={['code']} />
          <Field label="Code from the app" error={fieldError(confirm.error, 'code')}>
            {(id, d) => (
              <input
                id={id}
                name="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                aria-describedby={d}
              />
            )}
          </Field>
          <div className="buttons">
            <button type="submit">Turn on</button>
            <button type="button" className="secondary" onClick={() => setEnrolment(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p>
            <Badge>Off</Badge> With it on, signing in asks for a code from an app on your phone after the password, so a
            stolen password alone does not get anyone in.
          </p>
          <Alert error={actionError} />
          <button type="button" onClick={begin}>
            Set up two-factor sign-in
          </button>
        </>
      )}
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <>
      <Alert kind="success">Two-factor sign-in is on.</Alert>
      <p>
        Keep these recovery codes somewhere safe: each one signs you in once without the app. They are shown only now.
      </p>
      <ul className="recovery-codes mono" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </>
  );
}

function TurnOff({ onDone }: { onDone: () => void }) {
  const { submit, error } = useFormAction(async (f, form) => {
    await disableTwoFactor({ password: f.get('password'), code: f.get('code') });
    form.reset();
    onDone();
  });
  return (
    <form onSubmit={submit} noValidate aria-labelledby="turn-off-title">
      <h3 id="turn-off-title">Turn it off</h3>
      <Alert error={error} shown={['password', 'code']} />
      <div className="row">
        <Field label="Password" id="off-password" error={fieldError(error, 'password')}>
          {(id, d) => (
            <input id={id} name="password" type="password" autoComplete="current-password" aria-describedby={d} />
          )}
        </Field>
        <Field label="Code or recovery code" id="off-code" error={fieldError(error, 'code')}>
          {(id, d) => <input id={id} name="code" autoComplete="one-time-code" maxLength={40} aria-describedby={d} />}
        </Field>
      </div>
      <button type="submit" className="danger-outline">
        Turn off two-factor sign-in
      </button>
    </form>
  );
}

function Sessions() {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: teamKeys.sessions, queryFn: listSessions });
  const [notice, setNotice] = useState('');
  const reload = () => client.invalidateQueries({ queryKey: teamKeys.sessions });
  // two columns, each with a second line: the table fits a phone without scrolling sideways
  const columns: ColumnDef<SessionInfo>[] = [
    {
      header: 'Client',
      accessorKey: 'client',
      cell: ({ row: { original: s } }) => (
        <>
          {s.client} {s.current && <Badge tone="good">This session</Badge>}
          <div className="muted">{s.ip ?? 'IP address unknown'}</div>
        </>
      ),
    },
    {
      header: 'Last seen',
      accessorKey: 'last_seen_at',
      cell: ({ row: { original: s } }) => (
        <>
          {formatDate(s.last_seen_at)}
          <div className="muted">signed in {formatDate(s.created_at)}</div>
        </>
      ),
    },
    actionsColumn(
      (s) =>
        !s.current && (
          <ConfirmButton
            label="Sign out"
            name={`Sign out ${s.client} (${formatDate(s.created_at)})`}
            question="Sign this session out?"
            yes="Sign out"
            onConfirm={async () => {
              await endSession(s.id);
              setNotice('Session signed out.');
              await reload();
            }}
          />
        ),
    ),
  ];
  const others = (data ?? []).filter((s) => !s.current).length;
  return (
    <div className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p className="muted">Where you are signed in. A password reset ends them all.</p>
      {notice && <Alert kind="success">{notice}</Alert>}
      <DataTable
        label="Sessions"
        columns={columns}
        rows={data}
        error={error}
        empty="No sessions."
        rowKey={(s) => s.id}
      />
      {others > 0 && (
        <ConfirmButton
          label="Sign out everywhere else"
          name="Sign out everywhere else"
          question={`Sign out ${plural(others, 'other session')}?`}
          yes="Sign out"
          size="normal"
          onConfirm={async () => {
            const r = await endOtherSessions();
            setNotice(`${plural(r.ended, 'other session')} signed out.`);
            await reload();
          }}
        />
      )}
    </div>
  );
}
