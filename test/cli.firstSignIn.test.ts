// A new operator's first hour: `accounts create --owner-email` says how the owner gets a dashboard
// password, the command it prints works (read from standard input, never argv; short passwords and
// unknown users refused), and the owner then signs in to the dashboard over HTTP; when the owner has lost
// a second factor, `users reset-two-factor` (through the running server's admin API) lets the password
// alone sign in again. On a PGlite data dir, or on a database of its own under TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { cli, cliWithInput, serve } from './support/cli.ts';

async function signIn(url: string, email: string, password: string) {
  const res = await fetch(`${url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-mailgrove-csrf': '1' },
    body: JSON.stringify({ email, password }),
  });
  return {
    status: res.status,
    body: (await res.json()) as any,
    cookie: res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

/** The store the CLI and the server share, removed after the test. */
async function store(t: TestContext): Promise<Record<string, string>> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const dir = mkdtempSync(join(tmpdir(), 'mailgrove-first-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return { MAILGROVE_DATA_DIR: dir };
  }
  const name = `mailgrove_first_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  t.after(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString() };
}

test('CLI › accounts create prints how the owner signs in; following it, the owner signs in to the dashboard', async (t) => {
  const env = await store(t);

  const created = await cli(env, 'accounts', 'create', '--name', 'Acme', '--owner-email', 'Owner@Acme.test');
  assert.equal(created.code, 0, created.stderr);
  assert.equal(JSON.parse(created.stdout).name, 'Acme', 'stdout stays the account as JSON');
  const printed = /mailgrove (users set-password --email \S+)/.exec(created.stderr);
  assert.ok(printed, created.stderr);
  assert.match(created.stderr, /dashboard/);

  const service = await cli(env, 'accounts', 'create', '--name', 'Robots');
  assert.match(service.stderr, /--owner-email/, 'an account without an owner email says who can sign in: no one yet');

  const set = await cliWithInput(env, 'correct horse battery\n', ...printed[1]!.split(' '));
  assert.equal(set.code, 0, set.stderr);
  assert.equal(JSON.parse(set.stdout).email, 'Owner@Acme.test', 'the address as written, found case-insensitively');
  const short = await cliWithInput(env, 'short\n', 'users', 'set-password', '--email', 'owner@acme.test');
  assert.equal(short.code, 1);
  assert.match(short.stderr, /at least 8 characters/);
  const unknown = await cliWithInput(env, 'long enough pass\n', 'users', 'set-password', '--email', 'nobody@acme.test');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /User not found/);

  const token = `admin-${randomBytes(8).toString('hex')}`;
  const server = await serve({ ...env, MAILGROVE_ADMIN_TOKEN: token });
  t.after(() => server.stop());
  assert.equal((await signIn(server.url, 'owner@acme.test', 'wrong password')).status, 401);
  const ok = await signIn(server.url, 'owner@acme.test', 'correct horse battery');
  assert.equal(ok.status, 200);
  const me = await fetch(`${server.url}/app/api/me`, { headers: { cookie: ok.cookie } });
  assert.equal(me.status, 200);
  assert.match(JSON.stringify(await me.json()), /Acme/);

  // the owner turns on two-factor sign-in, then loses the phone and the codes: the operator turns it off
  const dashboard = (path: string, body: unknown) =>
    fetch(`${server.url}/app/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mailgrove-csrf': '1', cookie: ok.cookie },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const setup = await dashboard('/session/two-factor/setup', {});
  const code = new TOTP({ secret: Secret.fromBase32(setup.body.data.secret) }).generate();
  assert.equal((await dashboard('/session/two-factor/enable', { code })).status, 200);
  const asked = await signIn(server.url, 'owner@acme.test', 'correct horse battery');
  assert.equal(asked.body.data.two_factor_required, true);
  const reset = await cli(
    { ...env, MAILGROVE_URL: server.url, MAILGROVE_ADMIN_TOKEN: token },
    'users',
    'reset-two-factor',
    '--email',
    'owner@acme.test',
  );
  assert.equal(reset.code, 0, reset.stderr);
  assert.equal(JSON.parse(reset.stdout).two_factor, false);
  assert.match(reset.stderr, /the password alone signs in/);
  const again = await signIn(server.url, 'owner@acme.test', 'correct horse battery');
  assert.equal(again.body.data.signed_in, true);
  assert.notEqual(again.cookie, '');
  const missing = await cli(
    { ...env, MAILGROVE_URL: server.url, MAILGROVE_ADMIN_TOKEN: token },
    'users',
    'reset-two-factor',
  );
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /needs --email/);
  await server.stop(); // before the store goes
});
