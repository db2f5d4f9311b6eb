// Sign-in screens: "create the owner account" on a fresh instance, then email + password, or the
// identity-provider button when the server has OpenID Connect configured.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.ts';
import { Alert, Field, Loading } from '../ui.tsx';

interface Setup {
  needs_owner: boolean;
  sign_in: 'password' | 'oidc';
}

const SIGNIN_ERRORS: Record<string, string> = {
  not_a_member: 'You signed in, but your identity is not a member of any Mailgrove account. Ask an owner to add you.',
  rejected: 'The identity provider’s answer could not be verified. Please try again.',
  expired: 'The sign-in took too long or was started in another browser. Please try again.',
  provider_unavailable: 'The identity provider could not be reached. Please try again later.',
};

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const { data: setup, error } = useQuery({
    queryKey: ['setup'],
    queryFn: () => api.get<Setup>('/setup'),
    staleTime: 0,
    gcTime: 0,
  });
  const providerError = new URLSearchParams(location.search).get('signin_error');

  return (
    <main className="center">
      <div className="card narrow">
        <p className="brand big">
          <span className="logo" aria-hidden="true">
            ✉
          </span>{' '}
          Mailgrove
        </p>
        {providerError && <Alert>{SIGNIN_ERRORS[providerError] ?? 'Sign-in failed.'}</Alert>}
        <Alert error={error} />
        {!setup ? (
          <Loading />
        ) : setup.sign_in === 'oidc' ? (
          <>
            <h1>Sign in</h1>
            {setup.needs_owner && (
              <p>No one has signed in yet: the first person to sign in becomes the owner of a new account.</p>
            )}
            <a className="button wide" href="/app/auth/oidc/start">
              Sign in with your identity provider
            </a>
          </>
        ) : setup.needs_owner ? (
          <CreateOwner onDone={onSignedIn} />
        ) : (
          <PasswordSignIn onDone={onSignedIn} />
        )}
      </div>
    </main>
  );
}

function PasswordSignIn({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/session', { email: form.get('email'), password: form.get('password') });
      history.replaceState(null, '', location.pathname);
      onDone();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <h1>Sign in</h1>
      <Alert error={error} />
      <Field label="Email">
        {(id) => <input id={id} name="email" type="email" autoComplete="username" required autoFocus />}
      </Field>
      <Field label="Password">
        {(id) => <input id={id} name="password" type="password" autoComplete="current-password" required />}
      </Field>
      <button type="submit" className="wide" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="muted">
        No password yet? If an operator created your account, they set your first one with{' '}
        <code>mailgrove users set-password --email you@example.com</code>. If you were added to a team, ask its owner.
      </p>
    </form>
  );
}

function CreateOwner({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/setup/owner', {
        account_name: form.get('account_name'),
        name: form.get('name') || undefined,
        email: form.get('email'),
        password: form.get('password'),
      });
      onDone();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <h1>Create the owner account</h1>
      <p className="muted">This Mailgrove has no users yet. The account you create here owns it.</p>
      <Alert error={error} />
      <Field label="Account name" error={fields.account_name}>
        {(id, d) => <input id={id} name="account_name" required autoFocus aria-describedby={d} />}
      </Field>
      <Field label="Your name" error={fields.name}>
        {(id, d) => <input id={id} name="name" autoComplete="name" aria-describedby={d} />}
      </Field>
      <Field label="Email" error={fields.email}>
        {(id, d) => <input id={id} name="email" type="email" autoComplete="username" required aria-describedby={d} />}
      </Field>
      <Field label="Password" error={fields.password} hint="At least 8 characters.">
        {(id, d) => (
          <input
            id={id}
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
            aria-describedby={d}
          />
        )}
      </Field>
      <button type="submit" className="wide" disabled={busy}>
        {busy ? 'Creating…' : 'Create the owner account'}
      </button>
    </form>
  );
}
