// CLI on a PGlite data dir: `mailgrove accounts create` and `keys create|list|revoke` against the
// data dir directly, then a server on that data dir accepts the key; a second process on the data dir fails
// with a clear message; the same commands against the running server through the admin API (MAILGROVE_URL
// + token); the server's log never holds a raw key or the admin token. PostgreSQL: cli.postgres.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { json, operatorStory } from './support/cli.ts';

describe('CLI', () => {
  test('CLI › accounts create, keys create|list on a PGlite data dir; a server on it accepts the key; a second process fails clearly; the CLI then works through the admin API; no secret in the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailgrove-cli-'));
    try {
      await operatorStory({ MAILGROVE_DATA_DIR: dir }, { lock: true });
      assert.ok(!existsSync(join(dir, 'mailgrove.lock')), 'a clean stop releases the data dir');
      // a process that died without cleaning up leaves its pid behind: the next one must not be locked out
      writeFileSync(join(dir, 'mailgrove.lock'), '2147483646');
      const again = await json({ MAILGROVE_DATA_DIR: dir }, 'accounts', 'list');
      assert.equal(again.length, 2, 'the data dir is usable again after the server stopped');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
