// The dashboard shell: who is signed in (the `me` query) decides between the sign-in/setup screens and
// the pages; the pages sit beside a navigation bar and are picked by React Router from the path.
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { api, ApiError, onSignedOut, type Me } from './api.ts';
import { Alert, Loading } from './ui.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Overview } from './pages/Overview.tsx';
import { Keys } from './pages/Keys.tsx';
import { Imports, ImportView } from './pages/Imports.tsx';
import { Subscribers } from './pages/Subscribers.tsx';
import { Groups } from './pages/Groups.tsx';
import { SubscriberView } from './pages/SubscriberView.tsx';
import { Outbox, OutboxMessage } from './pages/Outbox.tsx';
import { Settings } from './pages/Settings.tsx';
import { Suppressions } from './pages/Suppressions.tsx';
import { Segments } from './pages/Segments.tsx';
import { SegmentPage } from './pages/segments/SegmentPage.tsx';
import { Forms } from './pages/Forms.tsx';
import { FormView } from './pages/forms/FormView.tsx';
import { Webhooks, WebhookView } from './pages/Webhooks.tsx';
import { Campaigns } from './pages/campaigns/Campaigns.tsx';
import { CampaignPage } from './pages/campaigns/CampaignPage.tsx';
import { Automations } from './pages/automations/Automations.tsx';
import { AutomationPage } from './pages/automations/AutomationPage.tsx';

const NAV = [
  ['/', 'Overview'],
  ['/app/campaigns', 'Campaigns'],
  ['/app/automations', 'Automations'],
  ['/app/subscribers', 'Subscribers'],
  ['/app/groups', 'Groups'],
  ['/app/suppressions', 'Suppressions'],
  ['/app/imports', 'Imports'],
  ['/app/segments', 'Segments'],
  ['/app/forms', 'Forms'],
  ['/app/webhooks', 'Webhooks'],
  ['/app/keys', 'API keys'],
  ['/app/outbox', 'Outbox'],
  ['/app/settings', 'Settings'],
] as const;

export function App() {
  const client = useQueryClient();
  const me = useQuery({
    queryKey: ['me'],
    queryFn: () =>
      api.get<Me>('/me').catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }),
    staleTime: Infinity,
  });
  useEffect(() => {
    const out = () => signedOut(client);
    onSignedOut.add(out);
    return () => void onSignedOut.delete(out);
  }, [client]);

  if (me.error)
    return (
      <main className="center">
        <Alert error={me.error} />
      </main>
    );
  if (me.data === undefined)
    return (
      <main className="center">
        <Loading />
      </main>
    );
  if (me.data === null) return <SignIn onSignedIn={() => client.invalidateQueries({ queryKey: ['me'] })} />;
  return <Shell me={me.data} />;
}

/** The session ended: nothing cached belongs to anyone any more, and `me` (kept, so App sees it) is nobody. */
function signedOut(client: QueryClient) {
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
  client.setQueryData(['me'], null);
}

function Shell({ me }: { me: Me }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // another account's data must not show for a moment: drop every cached answer, then ask again
  const restart = async () => {
    navigate('/', { replace: true });
    await client.resetQueries();
  };
  const signOut = async () => {
    await api.del('/session').catch(() => {});
    signedOut(client);
    navigate('/', { replace: true });
  };
  const switchTo = async (accountId: string) => {
    await api.put('/session/account', { account_id: accountId });
    await restart();
  };
  useEffect(() => {
    const page = NAV.find(([href]) => (href === '/' ? pathname === '/' : pathname.startsWith(href)));
    document.title = `${page ? page[1] : 'Mailgrove'} · ${me.account.name} · Mailgrove`;
    // a screen reader hears the new page: focus moves to the content after a navigation (not on load)
    if (first.current) first.current = false;
    else main.current?.focus({ preventScroll: false });
    window.scrollTo(0, 0);
  }, [pathname, me.account.name]);

  const canEdit = me.permissions.includes('edit');
  const canManage = me.permissions.includes('manage');
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
            const current = href === '/' ? pathname === '/' || pathname === '/app' : pathname.startsWith(href);
            return (
              <li key={href}>
                <Link to={href} aria-current={current ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="content" className="content" tabIndex={-1} ref={main}>
        <Routes>
          <Route path="/" element={<Overview me={me} />} />
          <Route path="/app" element={<Overview me={me} />} />
          <Route path="/app/campaigns" element={<Campaigns canEdit={canEdit} />} />
          <Route path="/app/campaigns/new" element={<CampaignPage canEdit={canEdit} />} />
          <Route
            path="/app/campaigns/:id"
            element={<WithId>{(id) => <CampaignPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/automations" element={<Automations canEdit={canEdit} />} />
          <Route path="/app/automations/new" element={<AutomationPage canEdit={canEdit} />} />
          <Route
            path="/app/automations/:id"
            element={<WithId>{(id) => <AutomationPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/keys" element={<Keys canManage={canManage} />} />
          <Route path="/app/webhooks" element={<Webhooks canManage={canManage} />} />
          <Route
            path="/app/webhooks/:id"
            element={<WithId>{(id) => <WebhookView id={id} canManage={canManage} />}</WithId>}
          />
          <Route path="/app/imports" element={<Imports canEdit={canEdit} />} />
          <Route path="/app/imports/:id" element={<WithId>{(id) => <ImportView id={id} />}</WithId>} />
          <Route path="/app/subscribers" element={<Subscribers canEdit={canEdit} />} />
          <Route
            path="/app/subscribers/:id"
            element={<WithId>{(id) => <SubscriberView id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/groups" element={<Groups canEdit={canEdit} />} />
          <Route path="/app/suppressions" element={<Suppressions canEdit={canEdit} />} />
          <Route path="/app/segments" element={<Segments canEdit={canEdit} />} />
          <Route
            path="/app/segments/:id"
            element={<WithId>{(id) => <SegmentPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/forms" element={<Forms canEdit={canEdit} />} />
          <Route path="/app/forms/:id" element={<WithId>{(id) => <FormView id={id} canEdit={canEdit} />}</WithId>} />
          <Route path="/app/outbox" element={<Outbox />} />
          <Route path="/app/outbox/:id" element={<WithId>{(id) => <OutboxMessage id={id} />}</WithId>} />
          <Route
            path="/app/settings"
            element={
              <Settings me={me} canManage={canManage} onSaved={() => client.invalidateQueries({ queryKey: ['me'] })} />
            }
          />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </div>
  );
}

/** The :id of the route; `key` makes a page start fresh when only the id changes. */
function WithId({ children }: { children: (id: string) => ReactNode }) {
  const { id = '' } = useParams();
  return <div key={id}>{children(id)}</div>;
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}
