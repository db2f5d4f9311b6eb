// The real app on a random port over a fresh database, plus the accounts and keys a test needs.
import type { TestContext } from 'node:test';
import { loadConfig, type Config, type Env } from '../../src/config.ts';
import type { Db } from '../../src/db/client.ts';
import * as accounts from '../../src/domain/accounts/accounts.ts';
import * as apiKeys from '../../src/domain/accounts/apiKeys.ts';
import { start, type Running } from '../../src/main.ts';
import { openTestDb } from './db.ts';
import type { Scope } from './scope.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export const TEST_ENV: Partial<Record<keyof Env, unknown>> = {
  PORT: 0,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  MAILGROVE_ADMIN_TOKEN: ADMIN_TOKEN,
  MAILGROVE_SECRET: 'test-secret',
  WORKER_POLL_MS: 500,
  DATABASE_URL: '',
  // a provider answering 421 / 4.7.x backs off this long in tests (a minute in production)
  PROVIDER_BACKOFF_BASE_MS: 200,
  PROVIDER_BACKOFF_MAX_MS: 2000,
  // tests send through SMTP sinks from unverified domains: the checks before a send report, never refuse,
  // except in the tests of the checks themselves, which set block
  SEND_CHECKS: 'warn',
  // test servers send to a loopback sink with links on http://127.0.0.1
  ALLOW_INSECURE_PUBLIC_URL: true,
  // browsers driven by tests fill a form faster than a person; the minimum fill time has its own tests
  FORM_MIN_FILL_SECONDS: 0,
};

export interface TestServer {
  url: string;
  db: Db;
  config: Config;
  running: Running;
  /** a new account (own tenant) with one key of these scopes */
  newAccount(opts?: {
    scopes?: string[];
    limit?: number;
  }): Promise<{ accountId: string; key: string; userId: string | null }>;
  /** newAccount, and a REST client with its key */
  restAccount(opts?: {
    scopes?: string[];
    limit?: number;
  }): Promise<{ accountId: string; key: string; userId: string | null; api: ApiClient }>;
  /** another key for an existing account */
  newKey(accountId: string, scopes?: string[], extra?: { expires_at?: Date }): Promise<{ id: string; key: string }>;
}

/** What the server logs when a request fails in a way no input should cause (a 500 or an MCP -32603). */
const INTERNAL_ERROR = /"msg":"(unhandled error|MCP internal error|MCP request failed|form route failed)"/;

/**
 * The real server on a fresh database. Unless a test sets LOG_LEVEL itself, the server's error log is
 * read: a request that ended in an internal error fails the file when the server stops, so no 500 hides
 * behind a test that only looked at other things. `allowInternalErrors` is for the tests that cause one.
 */
export async function startServer(
  t: Scope,
  env: Partial<Record<keyof Env, unknown>> = {},
  opts: { allowInternalErrors?: boolean; /** every log line the server writes lands here */ log?: string[] } = {},
): Promise<TestServer> {
  const testDb = await openTestDb();
  const watchLog = env.LOG_LEVEL === undefined;
  const config = loadConfig({ ...TEST_ENV, ...(watchLog && { LOG_LEVEL: 'error' }), ...env }, {});
  const internalErrors: string[] = [];
  const logStream = {
    write: (line: string) => {
      opts.log?.push(line);
      if (INTERNAL_ERROR.test(line)) internalErrors.push(line);
    },
  };
  const running = await start(config, {
    handle: testDb.handle,
    queueSchema: testDb.queueSchema,
    ...((watchLog || opts.log) && { logStream }),
  });
  t.after(async () => {
    await running.stop();
    await testDb.destroy();
    if (internalErrors.length > 0 && !opts.allowInternalErrors)
      throw new Error(
        `the server logged ${internalErrors.length} internal error(s):\n${internalErrors.join('\n').slice(0, 4000)}`,
      );
  });
  const db = testDb.handle.db;
  let n = 0;
  const newAccount: TestServer['newAccount'] = async (opts = {}) => {
    const account = await accounts.create(
      db,
      { name: `Account ${++n}`, subscriber_limit: opts.limit, owner_email: `owner${n}-${Date.now()}@example.com` },
      config.DEFAULT_SUBSCRIBER_LIMIT,
    );
    const key = await apiKeys.create(db, account.id, { name: 'test key', scopes: opts.scopes ?? ['*'] });
    return { accountId: account.id, key: key.key, userId: account.owner?.id ?? null };
  };
  return {
    url: running.url,
    db,
    config,
    running,
    newAccount,
    async restAccount(opts) {
      const a = await newAccount(opts);
      return { ...a, api: restClient(running.url, a.key) };
    },
    async newKey(accountId, scopes = ['*'], extra = {}) {
      const key = await apiKeys.create(db, accountId, { name: 'another key', scopes, expires_at: extra.expires_at });
      return { id: key.id, key: key.key };
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A tiny JSON client for one base path and bearer key. */
export function client(base: string, key?: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    const res = await fetch(base + path, {
      method,
      headers: {
        ...(key && { authorization: `Bearer ${key}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => call('PATCH', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
    call,
  };
}

export type ApiClient = ReturnType<typeof client>;

export function restClient(url: string, key?: string) {
  return client(`${url}/api/v1/external`, key);
}

/** Sorted keys of a response object: the spec fixes field sets exactly ("Which fields each response carries"). */
export function keysOf(obj: object): string[] {
  return Object.keys(obj).sort();
}
