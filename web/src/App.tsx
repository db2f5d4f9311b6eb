// The dashboard shell: who is signed in (the `me` query) decides between the sign-in/setup screens and
// the pages; the pages sit beside a navigation bar and are picked by React Router from the path.
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, onSignedOut } from './api/client.ts';
import { getMe, sessionKeys, signOut as endSession, switchAccount, type Me } from './api/session.ts';
import { Alert, Loading } from './ui.tsx';
import { SignInPage } from './pages/session/SignInPage.tsx';
import { InvitationPage } from './pages/session/InvitationPage.tsx';
import { ResetPasswordPage } from './pages/session/ResetPasswordPage.tsx';
import { SecurityPage } from './pages/account/SecurityPage.tsx';
import { OverviewPage } from './pages/overview/OverviewPage.tsx';
import { KeysPage } from './pages/keys/KeysPage.tsx';
import { ImportsPage } from './pages/imports/ImportsPage.tsx';
import { ImportPage } from './pages/imports/ImportPage.tsx';
import { SubscribersPage } from './pages/subscribers/SubscribersPage.tsx';
import { GroupsPage } from './pages/groups/GroupsPage.tsx';
import { SubscriberPage } from './pages/subscribers/SubscriberPage.tsx';
import { OutboxPage } from './pages/outbox/OutboxPage.tsx';
import { MessagePage } from './pages/outbox/MessagePage.tsx';
import { SettingsPage } from './pages/settings/SettingsPage.tsx';
import { SuppressionsPage } from './pages/suppressions/SuppressionsPage.tsx';
import { SegmentsPage } from './pages/segments/SegmentsPage.tsx';
import { SegmentPage } from './pages/segments/SegmentPage.tsx';
import { FormsPage } from './pages/forms/FormsPage.tsx';
import { FormPage } from './pages/forms/FormPage.tsx';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.tsx';
import { WebhookPage } from './pages/webhooks/WebhookPage.tsx';
import { CampaignsPage } from './pages/campaigns/CampaignsPage.tsx';
import { CampaignPage } from './pages/campaigns/CampaignPage.tsx';
import { AutomationsPage } from './pages/automations/AutomationsPage.tsx';
import { AutomationPage } from './pages/automations/AutomationPage.tsx';
import { PageHeader } from './lib/PageHeader.tsx';

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
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const me = useQuery({
    queryKey: sessionKeys.me,
    queryFn: () =>
      getMe().catch((e: unknown) => {
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

  const signedIn = async () => {
    navigate('/', { replace: true });
    await client.invalidateQueries({ queryKey: sessionKeys.me });
  };
  // the pages mailed links open, signed in or not: the token in their fragment is what they act on
  if (pathname === '/app/invitation') return <InvitationPage onSignedIn={signedIn} />;
  if (pathname === '/app/reset-password') return <ResetPasswordPage />;
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
  if (me.data === null) return <SignInPage onSignedIn={() => client.invalidateQueries({ queryKey: sessionKeys.me })} />;
  return <Shell me={me.data} />;
}

/** The session ended: nothing cached belongs to anyone any more, and `me` (kept, so App sees it) is nobody. */
function signedOut(client: QueryClient) {
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== sessionKeys.me[0] });
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
    await endSession().catch(() => {});
    signedOut(client);
    navigate('/', { replace: true });
  };
  const switchTo = async (accountId: string) => {
    await switchAccount(accountId);
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

  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [pathname]);
  const currentPage = NAV.find(([href]) =>
    href === '/' ? pathname === '/' || pathname === '/app' : pathname.startsWith(href),
  );
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
          <Link to="/app/account" className="muted" title={`Your sign-in and sessions (${me.user.idp_user_id})`}>
            {me.user.name ?? me.user.email} · {me.role}
          </Link>
          <button type="button" className="secondary small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        {/* on a phone the links fold under one button, so the page starts on the first screen */}
        <button
          type="button"
          className="menu-toggle secondary"
          aria-expanded={menuOpen}
          aria-controls="main-links"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
          {currentPage && <span className="muted"> · {currentPage[1]}</span>}
        </button>
        <ul id="main-links" className={menuOpen ? 'open' : undefined}>
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
        {me.links_private && (
          <Alert kind="warning">
            Links in mail (unsubscribe, tracking, confirmation) point at a private address that recipients cannot reach.
            Set PUBLIC_URL to the https:// address this instance is reached at.
          </Alert>
        )}
        <Routes>
          <Route path="/" element={<OverviewPage me={me} />} />
          <Route path="/app" element={<OverviewPage me={me} />} />
          <Route path="/app/campaigns" element={<CampaignsPage canEdit={canEdit} />} />
          <Route path="/app/campaigns/new" element={<CampaignPage canEdit={canEdit} />} />
          <Route
            path="/app/campaigns/:id"
            element={<WithId>{(id) => <CampaignPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/automations" element={<AutomationsPage canEdit={canEdit} />} />
          <Route path="/app/automations/new" element={<AutomationPage canEdit={canEdit} />} />
          <Route
            path="/app/automations/:id"
            element={<WithId>{(id) => <AutomationPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/keys" element={<KeysPage canManage={canManage} />} />
          <Route path="/app/webhooks" element={<WebhooksPage canManage={canManage} />} />
          <Route
            path="/app/webhooks/:id"
            element={<WithId>{(id) => <WebhookPage id={id} canManage={canManage} />}</WithId>}
          />
          <Route path="/app/imports" element={<ImportsPage canEdit={canEdit} />} />
          <Route path="/app/imports/:id" element={<WithId>{(id) => <ImportPage id={id} />}</WithId>} />
          <Route path="/app/subscribers" element={<SubscribersPage canEdit={canEdit} />} />
          <Route
            path="/app/subscribers/:id"
            element={<WithId>{(id) => <SubscriberPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/groups" element={<GroupsPage canEdit={canEdit} />} />
          <Route path="/app/suppressions" element={<SuppressionsPage canEdit={canEdit} />} />
          <Route path="/app/segments" element={<SegmentsPage canEdit={canEdit} />} />
          <Route
            path="/app/segments/:id"
            element={<WithId>{(id) => <SegmentPage id={id} canEdit={canEdit} />}</WithId>}
          />
          <Route path="/app/forms" element={<FormsPage canEdit={canEdit} />} />
          <Route path="/app/forms/:id" element={<WithId>{(id) => <FormPage id={id} canEdit={canEdit} />}</WithId>} />
          <Route path="/app/outbox" element={<OutboxPage />} />
          <Route path="/app/outbox/:id" element={<WithId>{(id) => <MessagePage id={id} />}</WithId>} />
          <Route
            path="/app/settings"
            element={
              <SettingsPage
                me={me}
                canManage={canManage}
                onSaved={() => client.invalidateQueries({ queryKey: sessionKeys.me })}
              />
            }
          />
          <Route path="/app/account" element={<SecurityPage me={me} />} />
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
      <PageHeader title="Page not found" />
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}
