// /app/invitation#token=…: the page an invitation mail links to. It shows which account and role the
// invitation is for, then asks for a password (a new one, or the one the address already signs in with),
// accepts and signs in — with the code of the second factor first when the person has it on. A used,
// revoked or expired link is a page that says so.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useFormAction } from '../../lib/formAction.ts';
import { ApiError } from '../../api/client.ts';
import { acceptInvitation, previewInvitation, teamKeys } from '../../api/team.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { Alert, Field, fieldError, Loading } from '../../ui.tsx';
import { AuthFrame, SecondFactor } from './SignInPage.tsx';

/** The token of a mailed link: it travels in the fragment, which browsers never send to the server. */
function linkToken(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

/** The link's token, and a new one when another link is opened in the same tab (only the fragment changes). */
export function useLinkToken(): string {
  const [token, setToken] = useState(linkToken);
  useEffect(() => {
    const changed = () => setToken(linkToken());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return token;
}

export function InvitationPage({ onSignedIn }: { onSignedIn: () => void }) {
  const token = useLinkToken();
  return <Invitation key={token} token={token} onSignedIn={onSignedIn} />;
}

function Invitation({ token, onSignedIn }: { token: string; onSignedIn: () => void }) {
  const preview = useQuery({
    queryKey: teamKeys.invitationLink(token),
    queryFn: () => previewInvitation(token),
    retry: false,
    gcTime: 0,
  });
  const [challenge, setChallenge] = useState<string>();
  const done = onSignedIn;
  const { submit, error, busy } = useFormAction(async (f) => {
    const step = await acceptInvitation({ token, name: f.get('name') || undefined, password: f.get('password') });
    if (step.signed_in) return done();
    setChallenge(step.challenge);
  });
  if (challenge) return <AuthFrame>{<SecondFactor challenge={challenge} onDone={done} onRestart={done} />}</AuthFrame>;
  const p = preview.data;
  return (
    <AuthFrame>
      <PageHeader title="Accept your invitation" />
      {preview.error ? (
        <LinkProblem error={preview.error} />
      ) : !p ? (
        <Loading />
      ) : (
        <form onSubmit={submit} noValidate>
          <p>
            You are invited to <strong>{p.account_name}</strong> as {p.role}, as{' '}
            <strong className="break">{p.email}</strong>.
          </p>
          <Alert error={error} shown={['password', 'name']} />
          {!p.has_password && (
            <Field label="Your name" error={fieldError(error, 'name')}>
              {(id, d) => (
                <input id={id} name="name" autoComplete="name" defaultValue={p.name ?? ''} aria-describedby={d} />
              )}
            </Field>
          )}
          <Field
            label={p.has_password ? 'Your password' : 'Choose a password'}
            error={fieldError(error, 'password')}
            hint={p.has_password ? 'This address signs in here already: enter its password.' : 'At least 8 characters.'}
          >
            {(id, d) => (
              <input
                id={id}
                name="password"
                type="password"
                autoComplete={p.has_password ? 'current-password' : 'new-password'}
                required
                autoFocus
                aria-describedby={d}
              />
            )}
          </Field>
          <button type="submit" className="wide" disabled={busy}>
            {busy ? 'Joining…' : 'Accept and sign in'}
          </button>
        </form>
      )}
    </AuthFrame>
  );
}

/** A link that no longer works: what happened, in words, and the way back to sign-in. */
export function LinkProblem({ error }: { error: unknown }) {
  const text =
    error instanceof ApiError && (error.status === 404 || error.status === 409 || error.status === 400)
      ? error.message
      : 'The link could not be checked. Please try again later.';
  return (
    <>
      <Alert>{text}</Alert>
      <p>
        <a href="/">Go to sign-in</a>
      </p>
    </>
  );
}
