// The CLI's two ways to manage accounts and keys: the admin API of a running server (here), or the domain
// directly when no server holds the store (direct.ts, loaded only then: the database and the domain are most
// of a command's start).
import type * as accounts from '../domain/accounts/accounts.ts';
import type * as apiKeys from '../domain/accounts/apiKeys.ts';
import type * as totp from '../domain/accounts/totp.ts';
import type * as users from '../domain/accounts/users.ts';
import { POINT_ADMIN, reach } from './reach.ts';

export interface Admin {
  createAccount(input: accounts.NewAccount): Promise<unknown>;
  listAccounts(): Promise<unknown>;
  createKey(accountId: string, input: apiKeys.NewApiKey): Promise<{ id: string; key: string; scopes: string[] }>;
  listKeys(accountId: string): Promise<unknown>;
  revokeKey(keyId: string): Promise<void>;
  setPassword(input: users.PasswordReset): Promise<unknown>;
  resetTwoFactor(input: totp.OperatorReset): Promise<unknown>;
}

export function adminClient(baseUrl: string, token: string | undefined): Admin {
  if (!token)
    throw new Error(
      'A server is running: set MAILGROVE_ADMIN_TOKEN (the same value the server has) to manage it through the admin API',
    );
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await reach(
      `${baseUrl.replace(/\/+$/, '')}/admin/v1${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      POINT_ADMIN,
    );
    const json = (await res.json().catch(() => ({}))) as {
      success?: boolean;
      data?: any;
      error?: string;
      message?: string;
    };
    if (!res.ok || json.success === false)
      throw new Error(
        `${res.status} ${json.error ?? res.statusText}${json.message ? `: ${json.message}` : ''}${json.data ? ` ${JSON.stringify(json.data)}` : ''}`,
      );
    return json.data;
  };
  /** Every item of a list, page by page (the admin API answers {<name>: [...], pagination}). */
  const all = async (path: string, name: string) => {
    const items: unknown[] = [];
    for (let page = 1; ; page++) {
      const data = await call('GET', `${path}?page=${page}&per_page=100`);
      items.push(...data[name]);
      if (page >= data.pagination.total_pages) return items;
    }
  };
  return {
    createAccount: (input) => call('POST', '/accounts', input),
    listAccounts: () => all('/accounts', 'accounts'),
    createKey: (accountId, input) => call('POST', `/accounts/${accountId}/api-keys`, input),
    listKeys: (accountId) => all(`/accounts/${accountId}/api-keys`, 'api_keys'),
    revokeKey: async (keyId) => void (await call('DELETE', `/api-keys/${keyId}`)),
    setPassword: (input) => call('POST', '/users/password', input),
    resetTwoFactor: (input) => call('POST', '/users/two-factor/reset', input),
  };
}
