// an owner created by an operator (admin API / CLI) has no password; `mailgrove users
// set-password` gives it one (read from standard input, never from argv) so it can sign in to the dashboard.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb } from '../../src/db/client.ts';
import * as users from '../../src/domain/accounts/users.ts';
import { cliWithInput } from '../support/cli.ts';

const cli = (dataDir: string, stdin: string, ...args: string[]) =>
  cliWithInput({ MAILGROVE_DATA_DIR: dataDir }, stdin, ...args);

test('CLI › users set-password lets an operator-created owner sign in; short passwords and unknown users are refused', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailgrove-users-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));

  const created = await cli(dataDir, '', 'accounts', 'create', '--name', 'Acme', '--owner-email', 'Owner@Acme.test');
  assert.equal(created.code, 0, created.stderr);

  const set = await cli(dataDir, 'correct horse battery\n', 'users', 'set-password', '--email', 'owner@acme.test');
  assert.equal(set.code, 0, set.stderr);
  assert.equal(JSON.parse(set.stdout).email, 'Owner@Acme.test');

  const short = await cli(dataDir, 'short\n', 'users', 'set-password', '--email', 'owner@acme.test');
  assert.equal(short.code, 1);
  assert.match(short.stderr, /at least 8 characters/);

  const unknown = await cli(dataDir, 'long enough pass\n', 'users', 'set-password', '--email', 'nobody@acme.test');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /User not found/);

  const handle = await openDb({ dataDir });
  try {
    assert.ok(
      await users.authenticatePassword(handle.db, 'owner@acme.test', 'correct horse battery'),
      'the new password signs in',
    );
    assert.equal(await users.authenticatePassword(handle.db, 'owner@acme.test', 'short'), undefined);
  } finally {
    await handle.close();
  }
});
