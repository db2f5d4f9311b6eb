// dashboard sign-in through OpenID Connect, against a real provider (oidc-provider on 127.0.0.1)
// driven like a browser: follow redirects, post the provider's login and consent forms, land back signed in.
// The first sign-in on a fresh instance creates the owner account; idp_user_id = the provider's `sub`.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import Provider from 'oidc-provider';
import * as users from '../../../src/domain/accounts/users.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';

const CLIENT = { client_id: 'mailgrove-dashboard', client_secret: 'a-client-secret-for-tests' };

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

// the identity provider: any login name signs in; it becomes `sub`, with a verified email <sub>@idp.test
const idp: Server = createServer();
await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
const dashboardPort = await freePort();
const dashboardUrl = `http://127.0.0.1:${dashboardPort}`;
const provider = new Provider(issuer, {
  clients: [
    {
      ...CLIENT,
      redirect_uris: [`${dashboardUrl}/app/auth/oidc/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({
      sub,
      email: `${sub}@idp.test`,
      email_verified: !sub.startsWith('unverified'),
      name: `Person ${sub}`,
    }),
  }),
  cookies: { keys: ['oidc-test-cookie-key'] },
  ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  features: { devInteractions: { enabled: true } },
});
idp.on('request', provider.callback());
after(() => new Promise((r) => idp.close(r)));

const s = await startServer(fileScope, {
  PORT: dashboardPort,
  PUBLIC_URL: dashboardUrl,
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: CLIENT.client_id,
  OIDC_CLIENT_SECRET: CLIENT.client_secret,
});

/** A cookie jar per host and manual redirects, like a browser. */
function browser() {
  const jars = new Map<string, Map<string, string>>();
  async function go(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      const u = new URL(url);
      const jar = jars.get(u.host) ?? new Map<string, string>();
      jars.set(u.host, jar);
      const headers: Record<string, string> = { ...init.headers };
      if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(url, { method, headers, body, redirect: 'manual' });
      for (const c of res.headers.getSetCookie()) {
        const pair = c.split(';')[0]!;
        const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
        if (value === '' || /expires=thu, 01 jan 1970|max-age=0/i.test(c)) jar.delete(name);
        else jar.set(name, value);
      }
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url, status: res.status, text: await res.text() };
    }
    throw new Error('too many redirects');
  }
  /** Starts sign-in on the dashboard, signs in at the provider as `login`, consents; returns where it ends. */
  async function signIn(login: string) {
    let page = await go(`${dashboardUrl}/app/auth/oidc/start`);
    for (let step = 0; step < 4 && page.url.startsWith(issuer); step++) {
      const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
      assert.ok(action, `a form on the provider's page ${page.url}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(page.text)?.[1];
      page = await go(new URL(action, page.url).href, {
        method: 'POST',
        form: prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' },
      });
    }
    return page;
  }
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${dashboardUrl}/app/api${path}`, {
      method,
      headers: {
        cookie: [...(jars.get(new URL(dashboardUrl).host) ?? [])].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-mailgrove-csrf': '1',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  return { go, signIn, api, jars };
}

describe('OIDC sign-in (real oidc-provider)', () => {
  test('with OIDC configured the dashboard offers the provider, and password sign-in / create-owner are off', async () => {
    const b = browser();
    const setup = await b.api('GET', '/setup');
    assert.deepEqual(setup.body.data, { needs_owner: true, sign_in: 'oidc' });
    assert.equal((await b.api('POST', '/session', { email: 'a@b.test', password: 'whatever!' })).status, 409);
    assert.equal(
      (await b.api('POST', '/setup/owner', { account_name: 'X', email: 'a@b.test', password: 'whatever!' })).status,
      409,
    );
  });

  test("first sign-in on a fresh instance creates the owner account; idp_user_id = the provider's sub; test-auth reports it", async () => {
    const b = browser();
    const end = await b.signIn('alice-sub');
    assert.equal(end.url, `${dashboardUrl}/`);
    assert.equal(end.status, 200);
    const me = await b.api('GET', '/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user.idp_user_id, 'alice-sub');
    assert.equal(me.body.data.user.email, 'alice-sub@idp.test', 'email from userinfo');
    assert.equal(me.body.data.role, 'owner');
    const key = await b.api('POST', '/keys', { name: 'alice key', scopes: ['*'] });
    assert.equal(key.status, 201);
    const auth = await restClient(s.url, key.body.data.key).get('/test-auth');
    assert.equal(auth.status, 200);
    assert.equal(auth.body.data.idp_user_id, 'alice-sub');
    assert.equal(auth.body.data.api_key_name, 'alice key');

    // signing in again is the same user, not a second owner
    const again = browser();
    await again.signIn('alice-sub');
    assert.equal((await again.api('GET', '/me')).body.data.user.id, me.body.data.user.id);
    assert.equal((await s.db.selectFrom('users').select('id').execute()).length, 1);
  });

  test('someone the provider knows but who is no member gets no session (not_a_member)', async () => {
    const b = browser();
    const end = await b.signIn('mallory-sub');
    assert.equal(end.url, `${dashboardUrl}/?signin_error=not_a_member`);
    assert.equal((await b.api('GET', '/me')).status, 401);
    assert.equal(
      await s.db.selectFrom('users').select('id').where('idp_user_id', '=', 'mallory-sub').executeTakeFirst(),
      undefined,
    );
  });

  test('a member added by email is linked to their sub on first sign-in, only with a verified email', async () => {
    const account = await s.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    await users.addMember(s.db, account.id, { email: 'bob-sub@idp.test', role: 'viewer' }, 'oidc');
    await users.addMember(s.db, account.id, { email: 'unverified-carol@idp.test', role: 'viewer' }, 'oidc');
    const bob = browser();
    await bob.signIn('bob-sub');
    const me = await bob.api('GET', '/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user.idp_user_id, 'bob-sub');
    assert.equal(me.body.data.role, 'viewer');
    const carol = browser();
    const end = await carol.signIn('unverified-carol');
    assert.equal(end.url, `${dashboardUrl}/?signin_error=not_a_member`);
  });

  test('a callback without the pending-login cookie (or with a forged state) signs no one in', async () => {
    const b = browser();
    const forged = await b.go(
      `${dashboardUrl}/app/auth/oidc/callback?code=abc&state=forged&iss=${encodeURIComponent(issuer)}`,
    );
    assert.equal(forged.url, `${dashboardUrl}/?signin_error=expired`);
    // a real pending cookie, but a state from somewhere else
    const start = await fetch(`${dashboardUrl}/app/auth/oidc/start`, { redirect: 'manual' });
    const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const wrong = await fetch(
      `${dashboardUrl}/app/auth/oidc/callback?code=abc&state=forged&iss=${encodeURIComponent(issuer)}`,
      { headers: { cookie }, redirect: 'manual' },
    );
    assert.equal(wrong.headers.get('location'), '/?signin_error=rejected');
    assert.equal(
      wrong.headers
        .getSetCookie()
        .some((c) => c.startsWith('mailgrove_session=') && !c.startsWith('mailgrove_session=;')),
      false,
    );
  });
});
