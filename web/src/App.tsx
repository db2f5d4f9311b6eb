// The dashboard shell: who is signed in decides between the sign-in/setup screens and the pages;
// the pages sit beside a navigation bar and are picked by the path.
import { useCallback, useEffect, useState } from 'react';
import { api, onSignedOut, type Me } from './api.ts';
import { Link, match, navigate, usePath } from './router.tsx';
import { Alert, Loading } from './ui.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Overview } from './pages/Overview.tsx';
import { Keys } from './pages/Keys.tsx';
import { Imports, ImportView } from './pages/Imports.tsx';
import { Subscribers } from './pages/Subscribers.tsx';
import { SubscriberView } from './pages/SubscriberView.tsx';
import { Outbox, OutboxMessage } from './pages/Outbox.tsx';
import { Settings } from './pages/Settings.tsx';
import { Segments } from './pages/Segments.tsx';
import { Forms, FormView } from './pages/Forms.tsx';

const NAV = [
  ['/', 'Overview'],
  ['/app/subscribers', 'Subscribers'],
  ['/app/imports', 'Imports'],
  ['/app/segments', 'Segments'],
  ['/app/forms', 'Forms'],
  ['/app/keys', 'API keys'],
  ['/app/outbox', 'Outbox'],
  ['/app/settings', 'Settings'],
] as const;

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const refresh = useCallback(() => {
    api.get<Me>('/me').then(setMe, (e) => (e.status === 401 ? setMe(null) : setError(e)));
  }, []);
  useEffect(() => {
    refresh();
    const out = () => setMe(null);
    onSignedOut.add(out);
    return () => void onSignedOut.delete(out);
  }, [refresh]);

  if (error)
    return (
      <main className="center">
        <Alert error={error} />
      </main>
    );
  if (me === undefined)
    return (
      <main className="center">
        <Loading />
      </main>
    );
  if (me === null) return <SignIn onSignedIn={refresh} />;
  return <Shell me={me} onChange={refresh} />;
}

function Shell({ me, onChange }: { me: Me; onChange: () => void }) {
  const path = usePath();
  const signOut = async () => {
    await api.del('/session').catch(() => {});
    navigate('/', true);
    onChange();
  };
  const switchTo = async (accountId: string) => {
    await api.put('/session/account', { account_id: accountId });
    navigate('/', true);
    onChange();
  };
  useEffect(() => {
    const page = NAV.find(([href]) => (href === '/' ? path === '/' : path.startsWith(href)));
    document.title = `${page ? page[1] : 'Mailgrove'} · ${me.account.name} · Mailgrove`;
  }, [path, me.account.name]);

  return (
    <div className="shell">
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand" aria-label="Mailgrove">
          <span className="logo" aria-hidden="true">
            ✉
          </span>{' '}
          Mailgrove
        </span>
        <div className="account">
          {me.accounts.length > 1 ? (
            <label>
              <span className="visually-hidden">Account</span>
              <select value={me.account.id} onChange={(e) => switchTo(e.target.value)}>
                {me.accounts.map((a) => (
                  <option key={a.account_id} value={a.account_id}>
                    {a.account_name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span className="account-name">{me.account.name}</span>
          )}
          <span className="muted" title={me.user.idp_user_id}>
            {me.user.name ?? me.user.email} · {me.role}
          </span>
          <button type="button" className="secondary small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        <ul>
          {NAV.map(([href, label]) => {
            const current = href === '/' ? path === '/' || path === '/app' : path.startsWith(href);
            return (
              <li key={href}>
                <Link href={href} aria-current={current ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="content" className="content" tabIndex={-1}>
        <Page path={path} me={me} onAccountChange={onChange} />
      </main>
    </div>
  );
}

function Page({ path, me, onAccountChange }: { path: string; me: Me; onAccountChange: () => void }) {
  const canEdit = me.permissions.includes('edit');
  const canManage = me.permissions.includes('manage');
  if (path === '/' || path === '/app' || path === '/app/') return <Overview me={me} />;
  if (match('/app/keys', path)) return <Keys canManage={canManage} />;
  if (match('/app/imports', path)) return <Imports canEdit={canEdit} />;
  let p;
  if ((p = match('/app/imports/:id', path))) return <ImportView id={p.id!} />;
  if (match('/app/subscribers', path)) return <Subscribers canEdit={canEdit} />;
  if ((p = match('/app/subscribers/:id', path))) return <SubscriberView id={p.id!} canEdit={canEdit} />;
  if (match('/app/segments', path)) return <Segments canEdit={canEdit} />;
  if (match('/app/forms', path)) return <Forms canEdit={canEdit} />;
  if ((p = match('/app/forms/:id', path))) return <FormView id={p.id!} />;
  if (match('/app/outbox', path)) return <Outbox />;
  if ((p = match('/app/outbox/:id', path))) return <OutboxMessage id={p.id!} />;
  if (match('/app/settings', path)) return <Settings me={me} canManage={canManage} onSaved={onAccountChange} />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        <Link href="/">Back to the overview</Link>
      </p>
    </section>
  );
}
