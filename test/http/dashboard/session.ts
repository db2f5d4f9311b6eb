// A browser-like client for /app/api in tests: keeps the cookies the server sets and sends the CSRF
// header on state-changing requests, as the dashboard's own fetch wrapper does (web/src/api/client.ts).
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as sessions from '../../../src/domain/accounts/sessions.ts';
import * as users from '../../../src/domain/accounts/users.ts';
import type { TestServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export function dashboardClient(base: string) {
  const jar = new Map<string, string>();
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (method !== 'GET' && opts.csrf !== false) headers['x-mailgrove-csrf'] = '1';
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(base + path, { method, headers, body: payload, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      const expired = attrs.some((a) => /max-age=0|expires=thu, 01 jan 1970/i.test(a.trim()));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    jar,
    get: (path: string, headers?: Record<string, string>) => call('GET', `/app/api${path}`, undefined, { headers }),
    post: (path: string, body?: unknown, opts?: { csrf?: boolean; headers?: Record<string, string> }) =>
      call('POST', `/app/api${path}`, body ?? {}, opts),
    put: (path: string, body?: unknown, opts?: { csrf?: boolean }) => call('PUT', `/app/api${path}`, body ?? {}, opts),
    patch: (path: string, body?: unknown, opts?: { csrf?: boolean }) =>
      call('PATCH', `/app/api${path}`, body ?? {}, opts),
    delete: (path: string, opts?: { csrf?: boolean }) => call('DELETE', `/app/api${path}`, undefined, opts),
    raw: call,
  };
}

let n = 0;
/**
 * A new account (or `accountId`) with a member of `role` and that member's signed-in client. The session
 * is started through the domain, not the password form: scrypt costs ~0.25 s a hash here, and sign-in
 * itself is tested in setup.test.ts. `withPassword` also gives the member a password.
 */
export async function signedIn(
  s: TestServer,
  role: users.Role = 'owner',
  accountId?: string,
  opts: { withPassword?: boolean } = {},
) {
  const password = 'correct horse battery';
  const email = `${role}${++n}-${Date.now()}@example.com`;
  const id = accountId ?? (await accounts.create(s.db, { name: `Dashboard ${n}` }, 1000)).id;
  const member = await users.addMember(
    s.db,
    id,
    {
      email,
      role: role === 'owner' ? 'admin' : role,
      ...(opts.withPassword && { password }),
    },
    'oidc',
  ); // the session is started below, not through a sign-in
  if (role === 'owner')
    await s.db
      .updateTable('memberships')
      .set({ role: 'owner' })
      .where('account_id', '=', id)
      .where('user_id', '=', member.id)
      .execute();
  const c = dashboardClient(s.url);
  const { token } = await sessions.start(s.db, member.id, id, 3_600_000);
  c.jar.set('mailgrove_session', token);
  return { client: c, accountId: id, userId: member.id, email, password };
}

/** The token of the n-th mail to `email` (in the outbox) whose link carries one in its fragment (#token=…). */
export function mailedToken(s: TestServer, email: string, n = 1): Promise<string> {
  return until(`mail ${n} to ${email}`, async () => {
    const rows = await s.db
      .selectFrom('outbox')
      .select('text')
      .where('to_addr', 'ilike', email)
      .orderBy('created_at')
      .execute();
    const link = rows.length >= n && /https?:\/\/\S+#token=\S+/.exec(rows[n - 1]!.text ?? '')?.[0];
    return link && new URL(link).hash.slice('#token='.length);
  });
}
