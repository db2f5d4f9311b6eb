// A process that can send (role all or worker, SMTP_URL set) refuses to start without an https PUBLIC_URL,
// naming both variables, unless ALLOW_INSECURE_PUBLIC_URL=true; an api-only process and the outbox mode
// start as before. The real CLI exits with the message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { loadConfig, startProblem } from '../src/config.ts';
import { start } from '../src/main.ts';

const SMTP = 'smtp://127.0.0.1:2525';

test('startProblem', () => {
  const problem = (env: Record<string, unknown>) => startProblem(loadConfig(env, {}));
  assert.match(problem({ SMTP_URL: SMTP })!, /SMTP_URL.*PUBLIC_URL.*not set/s);
  assert.match(problem({ SMTP_URL: SMTP, PUBLIC_URL: 'http://mail.example.com' })!, /PUBLIC_URL \(http:\/\/mail/);
  assert.match(problem({ SMTP_URL: SMTP, MAILGROVE_ROLE: 'worker' })!, /PUBLIC_URL/);
  assert.equal(problem({ SMTP_URL: SMTP, PUBLIC_URL: 'https://mail.example.com' }), undefined);
  assert.equal(problem({ SMTP_URL: SMTP, ALLOW_INSECURE_PUBLIC_URL: 'true' }), undefined);
  assert.equal(problem({ SMTP_URL: SMTP, MAILGROVE_ROLE: 'api' }), undefined);
  assert.equal(problem({}), undefined, 'outbox mode sends nothing out');
});

test('start() refuses before it opens anything', async () => {
  await assert.rejects(start(loadConfig({ SMTP_URL: SMTP, PORT: 0 }, {})), /SMTP_URL.*PUBLIC_URL/s);
});

test('the CLI exits with the message', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { PATH: process.env.PATH, SMTP_URL: SMTP, PUBLIC_URL: 'http://127.0.0.1:3000', PORT: '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr + r.stdout, /SMTP_URL is set.*PUBLIC_URL/s);
});
