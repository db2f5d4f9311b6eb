// Sign-in screens: "create the owner account" on a fresh instance, then email + password (and the code
// of the second factor when the member has it on, or "Forgot password?"), or the identity-provider
// button when the server has OpenID Connect configured.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useFormAction } from '../../lib/formAction.ts';
import { ApiError } from '../../api/client.ts';
import { createOwner, getSetup, sessionKeys, signIn } from '../../api/session.ts';
import { requestPasswordReset, secondFactor } from '../../api/team.ts';
import { Alert, Field, fieldError, Loading } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const SIGNIN_ERRORS: Record<string, string> = {
  not_a_member: 'You signed in, but your identity is not a member of any Mailgrove account. Ask an owner to add you.',
  rejected: 'The identity provider’s answer could not be verified. Please try again.',
  expired: 'The sign-in took too long or was started in another browser. Please try again.',
  provider_unavailable: 'The identity provider could not be reached. Please try again later.',
};

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const { data: setup, error } = useQuery({
    queryKey: sessionKeys.setup,
    queryFn: getSetup,
    staleTime: 0,
    gcTime: 0,
  });
  const providerError = new URLSearchParams(location.search).get('signin_error');

  return (
    <AuthFrame>
      {providerError && <Alert>{SIGNIN_ERRORS[providerError] ?? 'Sign-in failed.'}</Alert>}
      <Alert error={error} />
      {!setup ? (
        <Loading />
      ) : setup.sign_in === 'oidc' ? (
        <>
          <PageHeader title="Sign in" />
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
    </AuthFrame>
  );
}

/** The narrow card with the product's name that every screen before sign-in sits in. */
export function AuthFrame({ children }: { children: ReactNode }) {
  return (
    <main className="center">
      <div className="card narrow">
        <p className="brand big">
          <span className="logo" aria-hidden="true">
            ✉
          </span>{' '}
          Mailgrove
        </p>
        {children}
      </div>
    </main>
  );
}

function PasswordSignIn({ onDone }: { onDone: () => void }) {
  const [challenge, setChallenge] = useState<string>();
  const [forgot, setForgot] = useState(false);
  const { submit, error, busy } = useFormAction(async (form) => {
    const step = await signIn({ email: form.get('email'), password: form.get('password') });
    if (!step.signed_in) return setChallenge(step.challenge);
    history.replaceState(null, '', location.pathname);
    onDone();
  });
  if (challenge)
    return <SecondFactor challenge={challenge} onDone={onDone} onRestart={() => setChallenge(undefined)} />;
  if (forgot) return <ForgotPassword onBack={() => setForgot(false)} />;
  return (
    <form onSubmit={submit} noValidate>
      <PageHeader title="Sign in" />
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
      <p>
        <button type="button" className="link" onClick={() => setForgot(true)}>
          Forgot password?
        </button>
      </p>
      <p className="muted">
        No password yet? Ask the account’s owner to invite you by email. If an operator created your account, they set
        your first password with <code>mailgrove users set-password --email you@example.com</code>.
      </p>
    </form>
  );
}

/** The second step of a sign-in with two-factor sign-in on: a code from the app, or a recovery code. */
export function SecondFactor({
  challenge,
  onDone,
  onRestart,
}: {
  challenge: string;
  onDone: () => void;
  onRestart: () => void;
}) {
  const { submit, error, busy } = useFormAction(async (form) => {
    await secondFactor({ challenge, code: form.get('code') });
    history.replaceState(null, '', location.pathname);
    onDone();
  });
  return (
    <form onSubmit={submit} noValidate>
      <PageHeader title="Two-factor sign-in" />
      <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      <Alert error={error} />
      <Field label="Code" error={fieldError(error, 'code')}>
        {(id, d) => (
          <input
            id={id}
            name="code"
            autoComplete="one-time-code"
            inputMode="text"
            maxLength={40}
            required
            autoFocus
            aria-describedby={d}
          />
        )}
      </Field>
      <button type="submit" className="wide" disabled={busy}>
        {busy ? 'Checking…' : 'Verify and sign in'}
      </button>
      <p>
        <button type="button" className="link" onClick={onRestart}>
          Start again
        </button>
      </p>
    </form>
  );
}

function ForgotPassword({ onBack }: { onBack: () => void }) {
  const [sent, setSent] = useState(false);
  const { submit, error, busy } = useFormAction(async (form) => {
    await requestPasswordReset(form.get('email'));
    setSent(true);
  });
  return (
    <form onSubmit={submit} noValidate>
      <PageHeader title="Reset your password" />
      {sent ? (
        <Alert kind="success">
          If that address can sign in here, a link to reset its password is on its way. It works once, for an hour.
        </Alert>
      ) : (
        <p>Enter your address: we send a link to choose a new password.</p>
      )}
      <Alert error={error} />
      <Field label="Email" error={fieldError(error, 'email')}>
        {(id, d) => (
          <input id={id} name="email" type="email" autoComplete="username" required autoFocus aria-describedby={d} />
        )}
      </Field>
      <button type="submit" className="wide" disabled={busy}>
        {busy ? 'Sending…' : 'Send the link'}
      </button>
      <p>
        <button type="button" className="link" onClick={onBack}>
          Back to sign-in
        </button>
      </p>
    </form>
  );
}

function CreateOwner({ onDone }: { onDone: () => void }) {
  const { submit, error, busy } = useFormAction(async (form) => {
    await createOwner({
      account_name: form.get('account_name'),
      name: form.get('name') || undefined,
      email: form.get('email'),
      password: form.get('password'),
    });
    onDone();
  });
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <form onSubmit={submit} noValidate>
      <PageHeader title="Create the owner account" />
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
