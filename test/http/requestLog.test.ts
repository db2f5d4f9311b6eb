// The request log: one line per request naming who and what, and no secret in any line after a run
// that used an API key, a password, the server secret and a bounce-hook secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';
import { dashboardClient, signedIn } from './dashboard/session.ts';
import { mcpClient } from './mcp/client.ts';

const SECRET = 'server-secret-3f9a7c1d5e';
const log: string[] = [];
const s = await startServer(fileScope, { LOG_LEVEL: 'info', MAILGROVE_SECRET: SECRET }, { log });

test('one line per request with route, status, duration, account and key id; no secret anywhere', async () => {
  const { accountId, key, api } = await s.restAccount();
  const keyId = (
    await s.db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow()
  ).id;
  assert.equal((await api.get('/subscribers?search=x')).status, 200);
  assert.equal((await api.get('/subscribers', { authorization: 'Bearer wrong-key' } as any)).status, 401);
  await mcpClient(s.url, key).call('get_subscriber_count', {});
  const member = await signedIn(s, 'admin', accountId, { withPassword: true });
  const signIn = await dashboardClient(s.url).post('/session', { email: member.email, password: member.password });
  assert.equal(signIn.status, 200);
  assert.equal((await member.client.get('/me')).status, 200);
  const { bounce_secret } = await s.db
    .selectFrom('accounts')
    .select('bounce_secret')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  await fetch(`${s.url}/hooks/bounces/generic/${bounce_secret}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'nobody@example.com', type: 'hard' }),
  });

  const lines = log.map((l) => JSON.parse(l));
  const requests = lines.filter((l) => l.msg === 'request');
  const list = requests.find((l) => l.route === '/api/v1/external/subscribers' && l.status === 200);
  assert.ok(list, 'the REST request is logged');
  assert.equal(list.account_id, accountId);
  assert.equal(list.key_id, keyId);
  assert.equal(typeof list.reqId, 'string');
  assert.equal(typeof list.ms, 'number');
  assert.equal(list.method, 'GET');
  assert.ok(
    requests.some((l) => l.route === '/mcp' && l.key_id === keyId),
    'the MCP request names its key',
  );
  const me = requests.find((l) => l.route === '/app/api/me');
  assert.equal(me?.user_id, member.userId, 'a dashboard request names its member');
  assert.equal(me?.account_id, accountId);
  assert.ok(
    requests.some((l) => l.route?.startsWith('/hooks/bounces/') && l.route.includes(':')),
    'the route pattern, not the URL',
  );
  assert.equal(requests.filter((l) => l.route === '/api/v1/external/subscribers').length, 2, 'one line per request');
  assert.equal(lines.filter((l) => /incoming request|request completed/.test(l.msg)).length, 0);

  const all = log.join('\n');
  for (const secret of [key, member.password, SECRET, bounce_secret, 'wrong-key'])
    assert.equal(all.includes(secret), false, `the log holds ${secret.slice(0, 6)}…`);
});
