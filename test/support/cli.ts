// The CLI as an operator runs it: `mailgrove <command>` and `mailgrove serve` as child processes, and the
// whole operator story (accounts and keys from the CLI, a server that accepts them, the admin-API path,
// the log checked for secrets) for the CLI tests on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const ROOT = new URL('../../', import.meta.url).pathname;
const ADMIN_TOKEN = `admin-${randomBytes(8).toString('hex')}`;

export type Env = Record<string, string>;

/** Runs `mailgrove <args>` to the end. */
export function cli(env: Env, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWithInput(env, '', ...args);
}

/** Runs `mailgrove <args>` to the end with `stdin` as its standard input (a password, for instance). */
export function cliWithInput(
  env: Env,
  stdin: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: childEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function childEnv(env: Env): NodeJS.ProcessEnv {
  // nothing from the test runner's environment decides where the child's data goes
  const {
    DATABASE_URL: _d,
    MAILGROVE_URL: _u,
    MAILGROVE_ADMIN_TOKEN: _t,
    MAILGROVE_DATA_DIR: _m,
    ...rest
  } = process.env;
  return { ...rest, LOG_LEVEL: 'info', WORKER_POLL_MS: '500', ...env };
}

export async function json(env: Env, ...args: string[]) {
  const r = await cli(env, ...args);
  assert.equal(r.code, 0, `mailgrove ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export interface Server {
  url: string;
  child: ChildProcess;
  log(): string;
  stop(): Promise<number | null>;
}

/** `mailgrove serve` on a random port; resolves once it listens (its log line names the URL). */
export function serve(env: Env): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', ...env }),
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 90_000); // generous: CI shares 2 cores
    child.on('exit', () => reject(new Error(`server exited:\n${out}`)));
    child.stdout!.on('data', () => {
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1]!,
        child,
        log: () => out,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

async function get(url: string, key?: string) {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

/** The whole operator story on one store: accounts and keys from the CLI, a server that accepts them. */
export async function operatorStory(store: Env, opts: { lock: boolean }) {
  const account = await json(
    store,
    'accounts',
    'create',
    '--name',
    'Acme',
    '--owner-email',
    'ada@example.com',
    '--limit',
    '500',
  );
  assert.equal(account.name, 'Acme');
  assert.equal(account.subscriber_limit, 500);
  assert.equal(account.owner.email, 'ada@example.com');

  const human = await cli(
    store,
    'keys',
    'create',
    '--account',
    account.id,
    '--name',
    'Zapier',
    '--scopes',
    'subscribers:*,groups:read',
  );
  assert.equal(human.code, 0, human.stderr);
  const key = human.stdout.split('\n')[0]!;
  assert.match(key, /^mailgrove_[0-9a-f]{32}$/, 'the raw key is the first line, alone');
  assert.match(human.stdout, /cannot be shown again/);

  const keys = await json(store, 'keys', 'list', '--account', account.id);
  assert.equal(keys.length, 1);
  assert.deepEqual(
    [keys[0].name, keys[0].scopes, keys[0].hint],
    ['Zapier', ['subscribers:*', 'groups:read'], `mailgrove_…${key.slice(-4)}`],
  );
  assert.ok(!JSON.stringify(keys).includes(key), 'the list never shows the key');

  const server = await serve({ ...store, MAILGROVE_ADMIN_TOKEN: ADMIN_TOKEN });
  try {
    const auth = await get(`${server.url}/api/v1/external/test-auth`, key);
    assert.equal(auth.status, 200);
    assert.deepEqual([auth.body.data.user_id, auth.body.data.api_key_name], [account.owner.id, 'Zapier']);
    const created = await fetch(`${server.url}/api/v1/external/subscribers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'grace@example.com' }),
    });
    assert.equal(created.status, 201);
    assert.equal((await get(`${server.url}/api/v1/external/subscribers/stats`, key)).body.data.total, 1);

    if (opts.lock) {
      const second = await cli({ ...store, PORT: '0' }, 'serve');
      assert.equal(second.code, 1, 'a second server on the data dir must fail');
      assert.match(
        second.stderr,
        new RegExp(`data directory .* is in use by another Mailgrove process \\(pid ${server.child.pid}\\)`),
      );
      assert.match(second.stderr, /MAILGROVE_DATA_DIR|DATABASE_URL/, 'the message says what to do');
    }

    // the same commands against the running server, through the admin API
    const remote = { MAILGROVE_URL: server.url, MAILGROVE_ADMIN_TOKEN: ADMIN_TOKEN };
    const second = await json(remote, 'keys', 'create', '--account', account.id, '--name', 'Remote', '--json');
    assert.match(second.key, /^mailgrove_[0-9a-f]{32}$/);
    assert.equal((await get(`${server.url}/api/v1/external/test-auth`, second.key)).status, 200);
    const listed = await json(remote, 'keys', 'list', '--account', account.id);
    assert.deepEqual(listed.map((k: { name: string }) => k.name).sort(), ['Remote', 'Zapier']);
    const other = await json(remote, 'accounts', 'create', '--name', 'Other');
    assert.equal(other.name, 'Other');
    const revoked = await cli(remote, 'keys', 'revoke', second.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await get(`${server.url}/api/v1/external/test-auth`, second.key);
    assert.deepEqual([refused.status, refused.body.message], [401, 'API key has been revoked']);
    assert.equal((await get(`${server.url}/api/v1/external/test-auth`, key)).status, 200, 'other keys keep working');

    const noToken = await cli({ MAILGROVE_URL: server.url }, 'keys', 'list', '--account', account.id);
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /MAILGROVE_ADMIN_TOKEN/);

    // secrets never in logs: requests that succeeded, failed auth, and the admin calls above
    await get(`${server.url}/api/v1/external/nope`, key);
    await get(`${server.url}/api/v1/external/subscribers/not-a-uuid`, key);
    const log = server.log();
    assert.match(log, /"route":"\/api\/v1\/external\/test-auth"/, 'requests are logged at info');
    for (const secret of [
      key,
      key.slice('mailgrove_'.length),
      second.key,
      second.key.slice('mailgrove_'.length),
      ADMIN_TOKEN,
    ]) {
      assert.ok(!log.includes(secret), `a secret appears in the server log: ${secret.slice(0, 14)}…`);
    }
  } finally {
    assert.equal(await server.stop(), 0, 'SIGTERM stops the server cleanly');
  }
}
