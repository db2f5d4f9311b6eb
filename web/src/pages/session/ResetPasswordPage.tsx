// /app/reset-password#token=…: the page a password reset mail links to. It checks the link first (a used
// or expired one says so before anything is typed), then sets the new password; every session of the
// person ends, and they sign in again with it.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useFormAction } from '../../lib/formAction.ts';
import { checkPasswordReset, completePasswordReset, teamKeys } from '../../api/team.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { Alert, Field, fieldError, Loading } from '../../ui.tsx';
import { LinkProblem, useLinkToken } from './InvitationPage.tsx';
import { AuthFrame } from './SignInPage.tsx';

export function ResetPasswordPage() {
  const token = useLinkToken();
  return <ResetPassword key={token} token={token} />;
}

function ResetPassword({ token }: { token: string }) {
  const check = useQuery({
    queryKey: teamKeys.resetLink(token),
    queryFn: () => checkPasswordReset(token),
    retry: false,
    gcTime: 0,
  });
  const [done, setDone] = useState(false);
  const { submit, error, busy } = useFormAction(async (f) => {
    await completePasswordReset({ token, password: f.get('password') });
    history.replaceState(null, '', location.pathname);
    setDone(true);
  });
  return (
    <AuthFrame>
      <PageHeader title="Choose a new password" />
      {done ? (
        <>
          <Alert kind="success">Your password is changed, and every session that was signed in has ended.</Alert>
          <p>
            <a className="button wide" href="/">
              Sign in
            </a>
          </p>
        </>
      ) : check.error ? (
        <LinkProblem error={check.error} />
      ) : !check.data ? (
        <Loading />
      ) : (
        <form onSubmit={submit} noValidate>
          <Alert error={error} shown={['password']} />
          <Field label="New password" error={fieldError(error, 'password')} hint="At least 8 characters.">
            {(id, d) => (
              <input
                id={id}
                name="password"
                type="password"
                autoComplete="new-password"
                required
                autoFocus
                aria-describedby={d}
              />
            )}
          </Field>
          <button type="submit" className="wide" disabled={busy}>
            {busy ? 'Saving…' : 'Set the new password'}
          </button>
        </form>
      )}
    </AuthFrame>
  );
}
