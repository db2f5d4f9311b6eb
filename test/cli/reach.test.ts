// A CLI that cannot reach its server says which address it tried and how to point it elsewhere,
// instead of Node's bare "fetch failed".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../support/cli.ts';

/** A local address nothing listens on: a port the system handed out and that was closed again. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

test('CLI › admin commands against an unreachable MAILGROVE_URL name the URL and the variable to set', async () => {
  const url = await closedUrl();
  const res = await cli({ MAILGROVE_URL: url, MAILGROVE_ADMIN_TOKEN: 'token' }, 'accounts', 'list');
  assert.equal(res.code, 1);
  assert.match(res.stderr, new RegExp(`cannot reach the Mailgrove server at ${url.replace(/\./g, '\\.')}`));
  assert.match(res.stderr, /ECONNREFUSED/);
  assert.match(res.stderr, /MAILGROVE_URL/);
  assert.doesNotMatch(res.stderr, /^mailgrove: fetch failed$/m);
});

test('CLI › import against an unreachable server names the URL, --url and MAILGROVE_URL', async () => {
  const url = await closedUrl();
  const dir = mkdtempSync(join(tmpdir(), 'mailgrove-cli-conn-'));
  try {
    const file = join(dir, 'people.csv');
    writeFileSync(file, 'email\nada@example.com\n');
    const res = await cli({}, 'import', file, '--key', 'mailgrove_x', '--url', url);
    assert.equal(res.code, 1);
    assert.match(res.stderr, new RegExp(`cannot reach the Mailgrove server at ${url.replace(/\./g, '\\.')}`));
    assert.match(res.stderr, /--url/);
    assert.match(res.stderr, /MAILGROVE_URL/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
